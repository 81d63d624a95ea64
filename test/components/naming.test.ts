import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { childName, hostnameFor } from "../../components/naming";

describe("naming", () => {
  it("names member i of a fleet `${fleet}-${i}`", () => {
    expect([0, 1, 12].map((i) => childName("web", i))).toEqual(["web-0", "web-1", "web-12"]);
  });

  it("rejects a negative or fractional index", () => {
    expect(() => childName("web", -1)).toThrow(
      new RangeError("[index] must be a non-negative integer, got -1"),
    );
    expect(() => childName("web", 1.5)).toThrow(
      new RangeError("[index] must be a non-negative integer, got 1.5"),
    );
  });

  it("keeps a name that already is a DNS label", () => {
    expect(hostnameFor("web-0")).toBe("web-0");
  });

  it("lower-cases and folds each run of other characters and hyphens into one hyphen", () => {
    expect(hostnameFor("Web_Tier.EU--0")).toBe("web-tier-eu-0");
    expect(hostnameFor("__db__-3")).toBe("db-3");
  });

  it("cuts to 63 characters without ending on a hyphen", () => {
    expect(hostnameFor(`${"a".repeat(62)}-b`)).toBe("a".repeat(62));
    expect(hostnameFor("x".repeat(80))).toBe("x".repeat(63));
  });

  it("rejects a name with nothing usable in it", () => {
    expect(() => hostnameFor("__")).toThrow(
      new RangeError('cannot derive a hostname from the name "__"'),
    );
  });

  it("always yields a DNS label when it yields anything", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 100 }), (name) => {
        let label: string;
        try {
          label = hostnameFor(name);
        } catch {
          return !/[a-z0-9]/i.test(name);
        }
        return /^(?!-)[a-z0-9-]{1,63}(?<!-)$/.test(label);
      }),
    );
  });
});
