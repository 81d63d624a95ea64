import { describe, expect, it } from "vitest";
import { parseSeedName, seedFileName } from "../../../../provider/vm/seed/seed-name.js";

describe("seed-name", () => {
  it("names the owner and the first 12 hex of the content's sha256", () => {
    expect(seedFileName("vm-a1b2", new TextEncoder().encode("abc"))).toBe(
      "pp-vm-a1b2-ba7816bf8f01.iso",
    );
  });

  it("parses its own names, bare or as a PVE volid", () => {
    expect(parseSeedName("pp-vm-a1b2-ba7816bf8f01.iso")).toEqual({
      owner: "vm-a1b2",
      hash: "ba7816bf8f01",
    });
    expect(parseSeedName("local:iso/pp-vm-a1b2-ba7816bf8f01.iso")).toEqual({
      owner: "vm-a1b2",
      hash: "ba7816bf8f01",
    });
  });

  it("returns undefined for names that are not seeds", () => {
    for (const name of [
      "debian-12.iso",
      "pp-x-ba7816bf8f0.iso",
      "local:vztmpl/pp-vm-ba7816bf8f01.iso",
      "pp--ba7816bf8f01.iso",
      "PP-vm-ba7816bf8f01.iso",
    ]) {
      expect(parseSeedName(name)).toBe(undefined);
    }
  });

  it("rejects an owner that would make the name ambiguous", () => {
    expect(() => seedFileName("-x", new Uint8Array(0))).toThrow(
      'seed owner "-x" must be 1 to 48 of a-z 0-9 -, not starting or ending with -',
    );
  });
});
