import { describe, expect, it } from "vitest";
import { CloneRegistry } from "../../../provider/pve/clone-registry";

describe("CloneRegistry", () => {
  it("lets one identity claim a VMID and refuses it to another", () => {
    const clones = new CloneRegistry();
    expect(clones.claim(100, "a")).toBe(true);
    expect(clones.claim(100, "a")).toBe(true);
    expect(clones.claim(100, "b")).toBe(false);
  });

  it("names a clone's identity only once PVE accepted it", () => {
    const clones = new CloneRegistry();
    clones.claim(100, "a");
    expect(clones.startedFor(100)).toBeUndefined();
    clones.started(100, "pve2");
    expect(clones.startedFor(100)).toBe("a");
    expect(clones.startedClones("a")).toEqual([{ node: "pve2", vmid: 100 }]);
    expect(clones.startedClones("b")).toEqual([]);
  });

  it("ignores a start for a VMID nobody claimed", () => {
    const clones = new CloneRegistry();
    clones.started(100, "pve1");
    expect(clones.startedFor(100)).toBeUndefined();
  });

  it("frees a released VMID for another identity and forgets its clone", () => {
    const clones = new CloneRegistry();
    clones.claim(100, "a");
    clones.started(100, "pve1");
    clones.release(100);
    expect(clones.startedClones("a")).toEqual([]);
    expect(clones.claim(100, "b")).toBe(true);
  });
});
