import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../../provider/inputs/unknown";
import { diffTemplate } from "../../../provider/template/diff";

const olds = {
  url: "https://x/debian-12.qcow2",
  node: "pve1",
  importStorage: "local",
  storage: "local-lvm",
  cores: 1,
  timeouts: { downloadMs: 1, taskMs: 1 },
};

describe("diffTemplate", () => {
  it("reports no change for the same inputs", () => {
    expect(diffTemplate(olds, { ...olds })).toEqual({ changes: false, replaces: [] });
  });

  it("replaces the template on a new URL, checksum or storage", () => {
    expect(diffTemplate(olds, { ...olds, url: "https://x/debian-12.1.qcow2" }).replaces).toEqual([
      "url",
    ]);
    expect(diffTemplate(olds, { ...olds, checksum: "ab" }).replaces).toEqual(["checksum"]);
    expect(diffTemplate(olds, { ...olds, storage: "shared" }).replaces).toEqual(["storage"]);
  });

  it("counts a URL not known yet as a possible replacement", () => {
    expect(diffTemplate(olds, { ...olds, url: UNKNOWN }).replaces).toEqual(["url"]);
  });

  it("changes timeouts without a replacement", () => {
    expect(diffTemplate(olds, { ...olds, timeouts: { downloadMs: 2, taskMs: 1 } })).toEqual({
      changes: true,
      replaces: [],
    });
  });
});
