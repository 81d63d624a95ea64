import { describe, expect, it } from "vitest";
import { connectionSource } from "../../cli/connection";

describe("connectionSource", () => {
  it("names the stack's config when no connection flag is given", () => {
    expect(connectionSource({}, "dev")).toBe("stack dev's config");
  });

  it("says the flags win over the stack's config when one is given beside --stack", () => {
    const flags = { endpoint: "https://pve.dc2.example.com:8006", "api-token-file": "dc2.token" };
    expect(connectionSource(flags, "dev")).toBe("the flags over stack dev's config");
  });

  it("names the flags and environment without a stack", () => {
    expect(connectionSource({ endpoint: "https://pve1:8006" }, undefined)).toBe(
      "the flags and environment",
    );
  });
});
