/**
 * delete: the snapshot goes. One already gone (deleted by hand, or with its VM: PVE destroys a
 * VM's snapshots with it) is the goal reached. A delete that finds the VM locked by a delete of
 * the same snapshot still running (an earlier request whose answer was lost) waits for it.
 */
import type { OperationContext } from "../pve/context";
import { hasCode, vmLabel } from "../pve/errors";
import { deleteSnapshot, SNAPSHOT_TASK_BUDGET_MS } from "../pve/snapshot-tasks";
import { findVm } from "./locate";
import type { SnapshotState } from "./state";

export async function deleteVmSnapshot(ctx: OperationContext, state: SnapshotState): Promise<void> {
  const deadline = ctx.now() + SNAPSHOT_TASK_BUDGET_MS;
  for (;;) {
    const found = await findVm(ctx, { node: state.node, vmid: state.vmid });
    const snapshot = found?.snapshots.snapshots.find((s) => s.name === state.snapshotName);
    if (found === undefined || snapshot === undefined) return;
    if (snapshot.snapstate === "delete" && ctx.now() < deadline) {
      ctx.progress(`${vmLabel(found.vm)}: waiting for the task deleting ${state.snapshotName}`);
      await ctx.sleep(2_000);
      continue;
    }
    try {
      await ctx.withLock(`vm:${state.vmid}`, () =>
        deleteSnapshot(ctx, found.vm, state.snapshotName),
      );
      return;
    } catch (error) {
      const locked = hasCode(error, "TASK_FAILED") && error.context.taskErrorCode === "LOCKED";
      if (!locked || ctx.now() >= deadline) throw error;
      await ctx.sleep(2_000);
    }
  }
}
