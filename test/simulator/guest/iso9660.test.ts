import { describe, expect, it } from "vitest";
import { readIso } from "../../../simulator/guest/iso9660.js";
import { buildIso } from "../support/iso-builder.js";

describe("iso9660", () => {
  it("reads long file names from the Joliet descriptor", () => {
    const iso = readIso(
      buildIso({ "meta-data": "local-hostname: web1\n", "network-config": "version: 2\n" }),
    );
    expect(iso.volumeId).toBe("cidata");
    expect([...iso.files.keys()].sort()).toEqual(["meta-data", "network-config"]);
    expect(iso.files.get("meta-data")?.toString()).toBe("local-hostname: web1\n");
  });

  it("falls back to primary names, lower-cased without version suffix", () => {
    const iso = readIso(
      buildIso(
        { "meta-data": "x: 1\n" },
        { joliet: false, primaryName: (n) => `${n.toUpperCase()};1` },
      ),
    );
    expect([...iso.files.keys()]).toEqual(["meta-data"]);
  });

  it("shows 8.3-mangled primary names as Linux would (no Joliet)", () => {
    const iso = readIso(buildIso({ "meta-data": "x: 1\n" }, { joliet: false }));
    expect([...iso.files.keys()]).toEqual(["meta_dat"]);
  });

  it("rejects data without the CD001 signature", () => {
    expect(() => readIso(Buffer.alloc(40 * 2048))).toThrow(
      "not an ISO 9660 image (no CD001 signature)",
    );
  });

  it("rejects an image smaller than the system area", () => {
    expect(() => readIso(Buffer.from("hello"))).toThrow(
      "image too small for an ISO 9660 file system",
    );
  });
});
