import { describe, expect, it } from "vitest";
import {
  checkSnapshot,
  snapshotNameFor,
  snapshotNameOf,
} from "../../../provider/snapshot/inputs.js";

const valid = { resourceName: "before-upgrade", vmid: 100, node: "pve1" };

describe("snapshot/inputs", () => {
  it.each([
    ["before-upgrade", "before-upgrade"],
    ["pre upgrade.2", "pre-upgrade-2"],
    ["1st", "s-1st"],
    ["x", "s-x"],
    ["current", "s-current"],
    ["Pending", "s-Pending"],
  ])("derives %s → %s by PVE's snapshot-name rules", (resource, expected) => {
    expect(snapshotNameFor(resource)).toBe(expected);
  });

  it("keeps long names apart: 31 characters and a hash of the whole name", () => {
    const a = snapshotNameFor(`${"a".repeat(45)}-one`);
    const b = snapshotNameFor(`${"a".repeat(45)}-two`);
    expect([a.length, b.length]).toEqual([40, 40]);
    expect(a.slice(0, 32)).toBe(`${"a".repeat(31)}-`);
    expect(a).not.toBe(b);
  });

  it("uses the name that is set over the derived one", () => {
    expect(snapshotNameOf({ resourceName: "web-snap", name: "nightly" })).toBe("nightly");
    expect(snapshotNameOf({ resourceName: "web snap" })).toBe("web-snap");
  });

  it("fills the defaults of valid inputs", () => {
    expect(checkSnapshot(valid)).toEqual({
      inputs: { ...valid, description: "", includeRam: false },
      failures: [],
    });
  });

  it.each([
    ["1st", "must start with a letter and hold only letters, digits, _ and - (PVE)"],
    ["a".repeat(41), "is at most 40 characters for PVE"],
    ["current", "is a name PVE reserves (current, pending)"],
  ])("refuses the name %s, naming the property", (name, reason) => {
    expect(checkSnapshot({ ...valid, name }).failures).toEqual([{ property: "name", reason }]);
  });
});
