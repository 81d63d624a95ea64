/**
 * A VM's snapshots as whole steps: each call sends its request through the API seam and waits
 * for PVE's task, so a caller (the VmSnapshot resource, rollbackOnFailure, the CLI) sees the
 * snapshot taken, rolled back or deleted, or a typed error. A snapshot or VM that is already
 * gone counts as deleted.
 */
import type { SnapshotRequest, VmSnapshots } from "./api/proxmox-api";
import type { OperationContext } from "./context";
import { aboutVmOnce, hasCode, vmLabel } from "./errors";

/** Where the VM is. */
export interface SnapshotVm {
  readonly node: string;
  readonly vmid: number;
}

/** How long each snapshot task may run unless the caller says; RAM states take longest. */
export const SNAPSHOT_TASK_BUDGET_MS = 10 * 60_000;

/** The VM's snapshots (oldest first) and the one its current state descends from. */
export function listSnapshots(ctx: OperationContext, vm: SnapshotVm): Promise<VmSnapshots> {
  return ctx.api.vmSnapshots(vm.node, vm.vmid);
}

/** Takes a snapshot and waits for the `qmsnapshot` task. */
export async function takeSnapshot(
  ctx: OperationContext,
  vm: SnapshotVm,
  request: SnapshotRequest,
  budgetMs = SNAPSHOT_TASK_BUDGET_MS,
): Promise<void> {
  const step = `${vmLabel(vm)}: taking snapshot ${request.name}`;
  ctx.progress(step);
  await named(vm, `taking snapshot ${request.name}`, async () => {
    const upid = await ctx.api.createSnapshot(vm.node, vm.vmid, request);
    await ctx.waitForTask(vm.node, upid, { budgetMs, step });
  });
}

/** Runs a step whose errors then name the VM (a task list's error names only the node). */
async function named(vm: SnapshotVm, doing: string, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    throw aboutVmOnce(error, vm, doing);
  }
}

/**
 * Rolls back to a snapshot and waits for the `qmrollback` task. PVE stops a running VM for it;
 * `start` starts it again once the disks and config are back.
 */
export async function rollbackToSnapshot(
  ctx: OperationContext,
  vm: SnapshotVm,
  name: string,
  options: { readonly start: boolean; readonly budgetMs?: number | undefined },
): Promise<void> {
  const step = `${vmLabel(vm)}: rolling back to snapshot ${name}`;
  ctx.progress(step);
  await named(vm, `rolling back to snapshot ${name}`, async () => {
    const upid = await ctx.api.rollbackSnapshot(vm.node, vm.vmid, name, options.start);
    const budgetMs = options.budgetMs ?? SNAPSHOT_TASK_BUDGET_MS;
    await ctx.waitForTask(vm.node, upid, { budgetMs, step });
  });
}

/**
 * Deletes a snapshot and waits for the `qmdelsnapshot` task. PVE reports a missing snapshot or
 * VM as the task's error: `"gone"` then, since the goal is reached either way.
 */
export async function deleteSnapshot(
  ctx: OperationContext,
  vm: SnapshotVm,
  name: string,
  budgetMs = SNAPSHOT_TASK_BUDGET_MS,
): Promise<"deleted" | "gone"> {
  const step = `${vmLabel(vm)}: deleting snapshot ${name}`;
  ctx.progress(step);
  try {
    const upid = await ctx.api.deleteSnapshot(vm.node, vm.vmid, name);
    await ctx.waitForTask(vm.node, upid, { budgetMs, step });
    return "deleted";
  } catch (error) {
    if (snapshotGone(error)) return "gone";
    throw aboutVmOnce(error, vm, `deleting snapshot ${name}`);
  }
}

/** Whether an error says the snapshot (or its VM) does not exist, in the answer or the task. */
export function snapshotGone(error: unknown): boolean {
  if (hasCode(error, "NOT_FOUND")) return true;
  return hasCode(error, "TASK_FAILED") && error.context.taskErrorCode === "NOT_FOUND";
}
