/**
 * delete: the snapshot goes. One already gone (deleted by hand, or with its VM: PVE destroys a
 * VM's snapshots with it) is the goal reached.
 */
import type { OperationContext } from "../pve/context";
import { deleteSnapshot } from "../pve/snapshot-tasks";
import { findVm } from "./locate";
import type { SnapshotState } from "./state";

export async function deleteVmSnapshot(ctx: OperationContext, state: SnapshotState): Promise<void> {
  const found = await findVm(ctx, { node: state.node, vmid: state.vmid });
  if (found === undefined) return;
  if (!found.snapshots.snapshots.some((s) => s.name === state.snapshotName)) return;
  await ctx.withLock(`vm:${state.vmid}`, () => deleteSnapshot(ctx, found.vm, state.snapshotName));
}
