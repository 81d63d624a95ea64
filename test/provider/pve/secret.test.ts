import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { Secret } from "../../../provider/pve/secret.js";

const VALUE = "5f1e6c2a-0b1d-4c5e-9f00-secretvalue";

describe("secret", () => {
  it("prints [redacted] through every way of printing", () => {
    const secret = new Secret(VALUE);
    expect(String(secret)).toBe("[redacted]");
    expect(`${secret}`).toBe("[redacted]");
    expect(JSON.stringify({ secret })).toBe('{"secret":"[redacted]"}');
    expect(inspect(secret)).toBe("[redacted]");
    expect(inspect({ nested: { secret } }, { depth: 5, showHidden: true })).not.toContain(VALUE);
    expect(Object.keys(secret)).toEqual([]);
  });

  it("returns the value from reveal", () => {
    expect(new Secret(VALUE).reveal()).toBe(VALUE);
  });

  it("scrubs the value out of a text", () => {
    expect(new Secret(VALUE).scrub(`a ${VALUE} b ${VALUE}`)).toBe("a [redacted] b [redacted]");
    expect(new Secret("").scrub("text")).toBe("text");
  });
});
