import { describe, expect, it } from "vitest";
import {
  IN_PROGRESS,
  KEPT,
  isKept,
  isLeftOver,
  updateSnapshotName,
} from "../../../../provider/vm/rollback/snapshot-name";

/** qemu-server's `pve-snapshot-name`: pve-common's `pve-configid` format, at most 40 characters. */
const PVE_SNAPSHOT_NAME = /^[a-z][a-z0-9_-]+$/i;

describe("updateSnapshotName", () => {
  it("is a name PVE takes, with this package's prefix", () => {
    const name = updateSnapshotName({ identity: "abc", reasons: ["cores waits for a reboot"] }, 0);
    expect(name).toMatch(PVE_SNAPSHOT_NAME);
    expect(name.startsWith("pp-update-")).toBe(true);
    expect(name.length).toBeLessThanOrEqual(40);
  });

  it("differs between two updates, and between two takes of one update a millisecond apart", () => {
    const one = { identity: "abc", reasons: ["cores waits for a reboot"] };
    const other = { identity: "abc", reasons: ["scsi0 grows from 4 to 6 GiB"] };
    const at = Date.UTC(2026, 0, 1);
    expect(updateSnapshotName(one, at)).not.toBe(updateSnapshotName(other, at));
    expect(updateSnapshotName(one, at)).not.toBe(updateSnapshotName(one, at + 1));
  });

  it("passes over a name the VM has already", () => {
    const one = { identity: "abc", reasons: ["cores waits for a reboot"] };
    const first = updateSnapshotName(one, 0);
    expect(updateSnapshotName(one, 0, new Set([first]))).toBe(updateSnapshotName(one, 1));
  });
});

describe("isLeftOver and isKept", () => {
  const ours = (description: string) => ({ name: "pp-update-0badc0de-1", description });

  it("tells an update still in progress from one kept, by the description PVE stores", () => {
    expect([isLeftOver(ours(`${IN_PROGRESS}\n`)), isKept(ours(`${IN_PROGRESS}\n`))]).toEqual([
      true,
      false,
    ]);
    expect([isLeftOver(ours(KEPT)), isKept(ours(KEPT))]).toEqual([false, true]);
  });

  it("never claims a snapshot another name or description marks", () => {
    expect(isLeftOver({ name: "before-upgrade", description: IN_PROGRESS })).toBe(false);
    expect(isLeftOver(ours("taken by hand"))).toBe(false);
  });
});
