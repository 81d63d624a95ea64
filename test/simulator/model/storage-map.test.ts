import { describe, expect, it } from "vitest";
import { mapStorage, parseStorageMap } from "../../../simulator/model/storage-map.js";

describe("model/storage-map", () => {
  it("sends every storage to a lone target, and keeps unlisted ones with pairs", () => {
    const all = parseStorageMap("fast");
    const pairs = parseStorageMap("local-lvm:fast,ssd:bulk");
    if (typeof all === "string" || typeof pairs === "string") throw new Error("refused");
    expect([mapStorage(all, "local-lvm"), mapStorage(all, "ssd")]).toEqual(["fast", "fast"]);
    expect([mapStorage(pairs, "ssd"), mapStorage(pairs, "other")]).toEqual(["bulk", "other"]);
    expect(mapStorage(undefined, "local-lvm")).toBe("local-lvm");
  });

  it("keeps every storage with 1, and a pair list may add a default target", () => {
    const identity = parseStorageMap("1");
    const mixed = parseStorageMap("local-lvm:fast;bulk");
    if (typeof identity === "string" || typeof mixed === "string") throw new Error("refused");
    expect(mapStorage(identity, "local-lvm")).toBe("local-lvm");
    expect([mapStorage(mixed, "local-lvm"), mapStorage(mixed, "ssd")]).toEqual(["fast", "bulk"]);
  });

  it("refuses what parse_idmap refuses, with its texts", () => {
    expect(parseStorageMap("ssd:fast,ssd:bulk")).toBe("duplicate mapping for source 'ssd'");
    expect(parseStorageMap("fast,bulk")).toBe("default target ID can only be provided once");
    expect(parseStorageMap("1,fast")).toBe(
      "identity mapping cannot be combined with other mappings",
    );
    expect(parseStorageMap("local-lvm:9fast")).toBe(
      "entry 'local-lvm:9fast' contains invalid ID - storage ID '9fast' contains illegal characters",
    );
  });
});
