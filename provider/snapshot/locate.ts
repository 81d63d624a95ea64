/**
 * Where a snapshot's VM is now: on the node the inputs or state name, else wherever the cluster
 * listing finds its VMID (migrated, or moved by HA). Undefined when the VM is gone, so its
 * snapshots are gone with it.
 */
import type { VmSnapshots } from "../pve/api/proxmox-api";
import type { OperationContext } from "../pve/context";
import { hasCode } from "../pve/errors";
import { listSnapshots, type SnapshotVm } from "../pve/snapshot-tasks";
import { locate } from "../vm/steps/locate";

export async function findVm(
  ctx: OperationContext,
  vm: SnapshotVm,
): Promise<{ vm: SnapshotVm; snapshots: VmSnapshots } | undefined> {
  try {
    return { vm, snapshots: await listSnapshots(ctx, vm) };
  } catch (error) {
    if (!hasCode(error, "NOT_FOUND")) throw error;
  }
  const row = await locate(ctx, vm.vmid, true);
  if (row === undefined || row.node === vm.node) return undefined;
  const moved = { node: row.node, vmid: row.vmid };
  try {
    return { vm: moved, snapshots: await listSnapshots(ctx, moved) };
  } catch (error) {
    if (hasCode(error, "NOT_FOUND")) return undefined;
    throw error;
  }
}
