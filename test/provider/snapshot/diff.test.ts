import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../../provider/inputs/unknown.js";
import { diffSnapshot } from "../../../provider/snapshot/diff.js";

const olds = {
  resourceName: "before-upgrade",
  vmid: 100,
  node: "pve1",
  description: "",
  includeRam: false,
};

describe("snapshot/diff", () => {
  it("changes a description in place", () => {
    expect(diffSnapshot(olds, { ...olds, description: "pre 2.0" })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: true,
    });
  });

  it("replaces for another VM, another name or includeRam, deleting first", () => {
    expect(diffSnapshot(olds, { ...olds, vmid: 101 }).replaces).toEqual(["vmid"]);
    expect(diffSnapshot(olds, { ...olds, name: "other" }).replaces).toEqual(["name"]);
    expect(diffSnapshot(olds, { ...olds, includeRam: true }).replaces).toEqual(["includeRam"]);
  });

  it("claims no change while the VM's VMID is unknown (the preview of the VM's update)", () => {
    expect(diffSnapshot(olds, { ...olds, vmid: UNKNOWN }).changes).toBe(false);
  });

  it("sees no change when the VM moved node, or the set name equals the derived one", () => {
    expect(diffSnapshot(olds, { ...olds, node: "pve2" }).changes).toBe(false);
    expect(diffSnapshot(olds, { ...olds, name: "before-upgrade" }).changes).toBe(false);
  });
});
