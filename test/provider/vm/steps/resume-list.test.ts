import { describe, expect, it } from "vitest";
import { RESUME_ENV, resumableIdentities } from "../../../../provider/vm/steps/resume-list";

describe("resume-list", () => {
  it("reads the comma-separated identities the CLI lists", () => {
    const env = { [RESUME_ENV]: "0123456789abcdef, fedcba9876543210" };
    expect([...resumableIdentities(env)].sort()).toEqual(["0123456789abcdef", "fedcba9876543210"]);
  });

  it("is empty without the variable, and ignores anything that is not an identity", () => {
    expect(resumableIdentities({}).size).toBe(0);
    expect([...resumableIdentities({ [RESUME_ENV]: "*,,abc,0123456789ABCDEF" })]).toEqual([
      "0123456789abcdef",
    ]);
  });
});
