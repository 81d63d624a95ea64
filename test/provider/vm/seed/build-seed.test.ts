import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildSeed, SeedTooLargeError } from "../../../../provider/vm/seed/build-seed.js";
import { validateCloudInit, type CloudInit } from "../../../../provider/vm/seed/seed-inputs.js";
import { blkidLabel, isoinfoNames, withIsoFile, xorrisoExtract } from "./iso-readers.js";

function parse(input: unknown): CloudInit {
  const result = validateCloudInit(input);
  if (!result.ok) throw new Error(JSON.stringify(result.failures));
  return result.value;
}

const INPUT = parse({
  hostname: "web-1",
  packages: ["nginx"],
  network: [{ mac: "52:54:00:12:34:56", dhcp4: true }],
});
const IDENTITY = { instanceId: "pp-vm1", hostname: "vm1", owner: "vm1" };

describe("build-seed", () => {
  const seed = buildSeed(INPUT, IDENTITY);
  /** The image as uploaded: the written sectors, then the zero tail. */
  const image = Buffer.concat([seed.bytes, Buffer.alloc(seed.zeroTail)]);

  it("puts the four documents on a cidata ISO, readable as written", () => {
    withIsoFile(image, (path) => {
      expect(blkidLabel(path)).toBe("cidata");
      const names = ["meta-data", "network-config", "user-data", "vendor-data"];
      expect(isoinfoNames(path, "-J")).toEqual(names);
      const files = xorrisoExtract(path, names);
      for (const name of names) {
        expect(files.get(name)?.toString("utf8")).toBe(
          seed.documents[name as keyof typeof seed.documents],
        );
      }
    });
  });

  it("is byte-identical for the same inputs, and named by its content", () => {
    const again = buildSeed(INPUT, IDENTITY);
    expect(Buffer.from(again.bytes).equals(Buffer.from(seed.bytes))).toBe(true);
    const hash = createHash("sha256").update(image).digest("hex");
    expect(seed.filename).toBe(`pp-vm1-${hash.slice(0, 12)}.iso`);
  });

  it("holds only the written sectors, leaving the ISO's 300 KiB of zero padding to the upload", () => {
    expect(seed.zeroTail).toBe(300 * 1024);
    expect(seed.bytes.length).toBeLessThan(64 * 1024);
    expect(seed.bytes.length % 2048).toBe(0);
  });

  it("matches the golden seed, so any change to the documents or layout is deliberate", () => {
    expect(seed.filename).toBe("pp-vm1-a12b64683641.iso");
  });

  it("refuses a generated user-data over the limit with a clear error", () => {
    const big = parse({ writeFiles: [{ path: "/big", content: "x".repeat(70_000) }] });
    expect(() => buildSeed(big, IDENTITY)).toThrow(SeedTooLargeError);
    expect(() => buildSeed(big, IDENTITY)).toThrow(
      /^cloud-init user-data is 70\d{3} bytes, over the 65536-byte limit$/,
    );
  });
});
