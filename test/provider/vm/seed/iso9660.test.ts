import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildIso, type IsoFile } from "../../../../provider/vm/seed/iso9660.js";
import {
  blkidLabel,
  isoinfoExtract,
  isoinfoModes,
  isoinfoNames,
  isoinfoVolumeId,
  sevenZipExtract,
  sevenZipNames,
  withIsoFile,
  xorrisoExtract,
  xorrisoNames,
} from "./iso-readers.js";

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const pattern = (length: number, seed: number): Uint8Array =>
  Uint8Array.from({ length }, (_, i) => (i * 31 + seed) % 251);

const SEED_FILES: IsoFile[] = [
  { name: "user-data", bytes: text("#cloud-config\nhostname: web-1\n") },
  { name: "meta-data", bytes: text("instance-id: vm-1\nlocal-hostname: web-1\n") },
  { name: "network-config", bytes: text("version: 2\nethernets: {}\n") },
  { name: "vendor-data", bytes: new Uint8Array(0) },
  { name: "big.bin", bytes: pattern(5000, 7) },
];
const NAMES = ["big.bin", "meta-data", "network-config", "user-data", "vendor-data"];
const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

describe("iso9660", () => {
  const image = buildIso(SEED_FILES);

  it("labels the volume cidata for isoinfo and blkid", () => {
    withIsoFile(image, (path) => {
      expect(isoinfoVolumeId(path)).toBe("cidata");
      expect(blkidLabel(path)).toBe("cidata");
    });
  });

  it("shows the exact names through Joliet, Rock Ridge, libisofs and 7-Zip", () => {
    withIsoFile(image, (path) => {
      expect(isoinfoNames(path, "-J")).toEqual(NAMES);
      expect(isoinfoNames(path, "-R")).toEqual(NAMES);
      expect(xorrisoNames(path)).toEqual(NAMES);
      expect(sevenZipNames(path)).toEqual(NAMES);
    });
  });

  it("gives the plain ISO 9660 level unique 8.3 names", () => {
    withIsoFile(image, (path) => {
      expect(isoinfoNames(path, "")).toEqual([
        "BIG.BIN;1",
        "META_DAT.;1",
        "NETWORK_.;1",
        "USER_DAT.;1",
        "VENDOR_D.;1",
      ]);
    });
  });

  it("stores each file's bytes, including an empty file and one over a block", () => {
    withIsoFile(image, (path) => {
      const extracted = xorrisoExtract(path, NAMES);
      for (const file of SEED_FILES) {
        expect(sha256(extracted.get(file.name) ?? new Uint8Array(1))).toBe(sha256(file.bytes));
        expect(sha256(isoinfoExtract(path, "-J", file.name))).toBe(sha256(file.bytes));
        expect(sha256(isoinfoExtract(path, "-R", file.name))).toBe(sha256(file.bytes));
        expect(sha256(sevenZipExtract(path, file.name))).toBe(sha256(file.bytes));
      }
    });
  });

  it("marks Rock Ridge files read-only regular files and the root a directory", () => {
    withIsoFile(image, (path) => {
      expect(isoinfoModes(path)).toEqual([
        "dr-xr-xr-x .",
        "dr-xr-xr-x ..",
        ...NAMES.map((n) => `-r--r--r-- ${n}`),
      ]);
    });
  });

  it("builds the same bytes whatever the input order", () => {
    const reversed = buildIso([...SEED_FILES].reverse());
    expect(Buffer.from(reversed).equals(Buffer.from(image))).toBe(true);
  });

  it("matches the golden image, so any change to the layout is deliberate", () => {
    expect(image.length).toBe(182 * 2048);
    expect(sha256(image)).toBe("8a1b7d4b7d3b95e1953fa97b87a30c178fecb7e708ce3fb4990f1f786c76c28f");
  });

  it("writes the descriptor set: primary, Joliet, terminator", () => {
    const at = (sector: number): number[] =>
      Array.from(image.subarray(sector * 2048, sector * 2048 + 7));
    expect(at(16)).toEqual([1, 67, 68, 48, 48, 49, 1]);
    expect(at(17)).toEqual([2, 67, 68, 48, 48, 49, 1]);
    expect(at(18)).toEqual([255, 67, 68, 48, 48, 49, 1]);
    expect(Buffer.from(image.subarray(17 * 2048 + 88, 17 * 2048 + 91)).toString()).toBe("%/E");
  });

  it("writes the volume size in both byte orders", () => {
    const view = new DataView(image.buffer, image.byteOffset);
    expect(view.getUint32(16 * 2048 + 80, true)).toBe(182);
    expect(view.getUint32(16 * 2048 + 84, false)).toBe(182);
    expect(view.getUint32(17 * 2048 + 80, true)).toBe(182);
  });

  it("spreads a directory over several sectors without splitting a record", () => {
    const files = Array.from({ length: 60 }, (_, i) => ({
      name: `file-with-a-long-name-${String(i).padStart(3, "0")}.txt`,
      bytes: text(`file ${i}\n`),
    }));
    const names = files.map((f) => f.name);
    withIsoFile(buildIso(files), (path) => {
      expect(isoinfoNames(path, "-J")).toEqual(names);
      // The Rock Ridge tree is the primary directory, listed in 8.3 order (FILE_WI1 … FILE_W10).
      expect(isoinfoNames(path, "-R").sort()).toEqual(names);
      expect(sevenZipNames(path)).toEqual(names);
      const extracted = xorrisoExtract(path, names);
      expect(names.map((n) => extracted.get(n)?.toString())).toEqual(
        names.map((_, i) => `file ${i}\n`),
      );
      expect(new Set(isoinfoNames(path, "")).size).toBe(60);
    });
  });

  it("honours a custom volume id", () => {
    withIsoFile(buildIso(SEED_FILES, { volumeId: "CIDATA" }), (path) => {
      expect(isoinfoVolumeId(path)).toBe("CIDATA");
      expect(blkidLabel(path)).toBe("CIDATA");
    });
  });

  it("rejects a name with a slash, a duplicate name and a bad volume id", () => {
    expect(() => buildIso([{ name: "a/b", bytes: text("") }])).toThrow(
      'ISO file name "a/b" is invalid: use 1 to 64 of A-Z a-z 0-9 . _ -',
    );
    expect(() =>
      buildIso([
        { name: "x", bytes: text("1") },
        { name: "x", bytes: text("2") },
      ]),
    ).toThrow('ISO file name "x" appears twice');
    expect(() => buildIso([], { volumeId: "has space" })).toThrow(
      'ISO volume id "has space" must be 1 to 16 of A-Z a-z 0-9 _',
    );
  });

  it("reads back random files of random sizes through xorriso and isoinfo", () => {
    const fileArb = fc.record({
      name: fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,20}$/),
      bytes: fc.oneof(
        fc.constant(new Uint8Array(0)),
        fc.uint8Array({ minLength: 1, maxLength: 100 }),
        fc.uint8Array({ minLength: 2040, maxLength: 2056 }),
        fc.uint8Array({ minLength: 4095, maxLength: 6200 }),
      ),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(fileArb, { minLength: 1, maxLength: 8, selector: (f) => f.name }),
        (files) => {
          const names = files.map((f) => f.name).sort();
          withIsoFile(buildIso(files), (path) => {
            expect(isoinfoNames(path, "-R").sort()).toEqual(names);
            const extracted = xorrisoExtract(path, names);
            for (const f of files) {
              expect(sha256(extracted.get(f.name) ?? new Uint8Array(1))).toBe(sha256(f.bytes));
              expect(sha256(isoinfoExtract(path, "-J", f.name))).toBe(sha256(f.bytes));
            }
          });
        },
      ),
      { numRuns: 25, seed: 5 },
    );
  });
});
