/**
 * read (refresh): the snapshot as PVE has it now. Deleted outside Pulumi (or its VM gone) reads
 * as gone, and the engine plans it again; a description changed by hand reads back as drift; a
 * rollback to it made outside Pulumi sets `rolledBackAt`.
 */
import type { OperationContext } from "../pve/context";
import { isTransient } from "../pve/errors";
import type { SnapshotVm } from "../pve/snapshot-tasks";
import { starttimeOfUpid } from "../pve/upid";
import { findVm } from "./locate";
import type { SnapshotState } from "./state";

export async function readSnapshot(
  ctx: OperationContext,
  state: SnapshotState,
): Promise<SnapshotState | undefined> {
  const found = await findVm(ctx, { node: state.node, vmid: state.vmid });
  const snapshot = found?.snapshots.snapshots.find((s) => s.name === state.snapshotName);
  if (found === undefined || snapshot === undefined) return undefined;
  // A rollback leaves the VM's current state descending from the snapshot it restored.
  const descends = found.snapshots.parent === state.snapshotName;
  const snaptime = snapshot.snaptime ?? state.snaptime;
  const rolledBackAt = descends ? await lastRollback(ctx, found.vm, snaptime) : undefined;
  return {
    ...state,
    node: found.vm.node,
    description: snapshot.description,
    snaptime,
    vmstate: snapshot.vmstate,
    rolledBackAt: rolledBackAt ?? state.rolledBackAt,
  };
}

/** The start of the VM's newest successful `qmrollback` task since `since`, if any. */
async function lastRollback(
  ctx: OperationContext,
  vm: SnapshotVm,
  since: number,
): Promise<number | undefined> {
  // What rolledBackAt adds is a notice: a task list that does not answer now leaves it as it was.
  const tasks = await ctx.api
    .nodeTasks(vm.node, { source: "archive", since, vmid: vm.vmid, typefilter: "qmrollback" })
    .catch((error: unknown) => {
      if (isTransient(error)) return undefined;
      throw error;
    });
  if (tasks === undefined) return undefined;
  const times = tasks
    .filter((task) => task.status === "OK")
    .map((task) => starttimeOfUpid(task.upid) ?? 0);
  return times.length === 0 ? undefined : Math.max(...times);
}
