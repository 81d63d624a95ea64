/**
 * How the snapshots `rollbackOnFailure` takes are named and told apart, so that a later run (or
 * `sweep`) finds one a killed run left: the name is this package's prefix, a hash of the update
 * (the VM's identity and what the update changes) and the millisecond it was taken; the description says whether it still
 * protects an update in progress or is one `keep` holds after the update succeeded.
 *
 * PVE's snapshot names (qemu-server's `pve-snapshot-name`, pve-common's `pve-configid` format):
 * a letter, then letters, digits, `_` or `-`, at most 40 characters.
 */
import { createHash } from "node:crypto";
import type { VmSnapshot } from "../../pve/api/proxmox-api";
import { canonical } from "../../inputs/canonical";

/** Every snapshot this package takes before an update starts with it. */
export const UPDATE_SNAPSHOT_PREFIX = "pp-update-";

/** The description of a snapshot that protects an update still in progress. */
export const IN_PROGRESS =
  "pulumi-proxmox: taken before an update still in progress; rolled back to, or deleted, when it ends";

/** The description of a snapshot kept after its update succeeded (`rollbackOnFailure.keep`). */
export const KEPT =
  "pulumi-proxmox: the state before an update that succeeded (kept by rollbackOnFailure.keep)";

/**
 * `pp-update-<8 hex of the update>-<milliseconds, base 36>`: 27 characters. A name the VM has
 * already (two updates in one millisecond) is not taken: the next millisecond's is.
 */
export function updateSnapshotName(
  update: unknown,
  takenAtMs: number,
  taken: ReadonlySet<string> = new Set(),
): string {
  const hash = createHash("sha256").update(canonical(update)).digest("hex").slice(0, 8);
  let at = takenAtMs;
  while (taken.has(`${UPDATE_SNAPSHOT_PREFIX}${hash}-${at.toString(36)}`)) at++;
  return `${UPDATE_SNAPSHOT_PREFIX}${hash}-${at.toString(36)}`;
}

/** Whether this package took the snapshot before an update. */
export const isUpdateSnapshot = (snapshot: Pick<VmSnapshot, "name">): boolean =>
  snapshot.name.startsWith(UPDATE_SNAPSHOT_PREFIX);

/** A snapshot of ours whose update never ended: a killed run's, for the next run to finish. */
export const isLeftOver = (snapshot: Pick<VmSnapshot, "name" | "description">): boolean =>
  isUpdateSnapshot(snapshot) && snapshot.description.trim().startsWith(IN_PROGRESS);

/** A snapshot of ours that `keep` holds. */
export const isKept = (snapshot: Pick<VmSnapshot, "name" | "description">): boolean =>
  isUpdateSnapshot(snapshot) && snapshot.description.trim().startsWith(KEPT);
