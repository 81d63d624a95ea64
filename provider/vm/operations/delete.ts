/**
 * delete, in order (docs/design.md, "Ordered delete"): ownership check → stop → seed on every node
 * → protection off → destroy. The VM goes last, so a failed seed delete leaves it (stopped) in place and the next
 * delete finishes both; nothing is left that only a human would find. A VM under HA is stopped
 * through HA and destroyed with `purge`, which also removes its HA resource (docs/design.md).
 */
import type { OperationContext } from "../../pve/context";
import { PermanentError, aboutVm, hasCode } from "../../pve/errors";
import { readMark } from "../identity";
import { readFlag } from "../spec/lifecycle";
import { guestRunning } from "../state/vm-facts";
import type { VmState } from "../state/vm-state";
import type { VmLocation } from "../steps/vm-location";
import { locate } from "../steps/locate";
import { isHaRequest, waitForPowerState } from "../steps/power-state";
import { deleteSeedsEverywhere } from "../steps/seed-step";

/** What delete needs to know of a VM: where to find it, how to tell it is ours, its budget. */
export type DeleteTarget = Pick<VmState, "vmid" | "identityHash" | "vmName" | "isoStorage"> & {
  /** The budget of each task (stop, seed deletes, destroy). */
  readonly timeouts: Pick<VmState["timeouts"], "taskMs">;
};

export async function deleteVm(ctx: OperationContext, state: DeleteTarget): Promise<void> {
  const budget = state.timeouts.taskMs;
  const owner = { identity: state.identityHash, vmid: state.vmid, isoStorage: state.isoStorage };
  // The process's last listing locates the VM for every delete of a destroy; a VM that is not
  // where it says (moved, or gone meanwhile) is looked up once more in a fresh listing.
  for (let fresh = false; ; fresh = true) {
    const row = await locate(ctx, state.vmid, fresh).catch((error) => {
      throw aboutVm(error, { vmid: state.vmid }, "finding it in the cluster listing to delete it");
    });
    if (!row) {
      // The VM is gone (by hand, or a delete that failed after the destroy): only its seed may remain.
      await deleteSeedsEverywhere(ctx, owner, budget);
      return;
    }
    try {
      await deleteAt(ctx, state, { node: row.node, vmid: row.vmid }, owner);
      return;
    } catch (error) {
      // Gone midway (someone else, or our own earlier request whose answer was lost, finished the
      // job): the goal is reached, whether PVE says so in the answer or in the task's exit.
      if (!hasCode(error, "NOT_FOUND") && !goneInTask(error)) throw error;
      if (fresh) return;
    }
  }
}

async function deleteAt(
  ctx: OperationContext,
  state: DeleteTarget,
  vm: VmLocation,
  owner: Parameters<typeof deleteSeedsEverywhere>[1],
): Promise<void> {
  const budget = state.timeouts.taskMs;
  const label = `VM ${vm.vmid} on ${vm.node}`;
  await ctx.withLock(`vm:${vm.vmid}`, async () => {
    const config = await ctx.api.vmConfig(vm.node, vm.vmid);
    const mark = readMark(config.description);
    // An adopted VM without a name has "" as its name in state.
    if ((config.name ?? "") !== state.vmName || mark?.id !== state.identityHash) {
      throw new PermanentError(
        "NOT_OURS",
        `${label} is not the VM this resource created (name ${JSON.stringify(config.name ?? "")}, ` +
          `expected ${state.vmName}); nothing was touched. If the VM was replaced by hand, remove ` +
          "the resource from the state with `pulumi state delete`.",
        vm,
      );
    }

    const status = await ctx.api.vmStatus(vm.node, vm.vmid);
    if (status.status !== "stopped" || guestRunning(status.status, status.qmpstatus)) {
      ctx.progress(`${label}: stopping`);
      const upid = await ctx.api.stopVm(vm.node, vm.vmid);
      await ctx.waitForTask(vm.node, upid, { budgetMs: budget, step: `${label}: stopping` });
      // Under HA the stop task only asked ha-manager; destroy refuses a VM still running.
      if (isHaRequest(upid)) await waitForPowerState(ctx, vm, "stopped", budget);
    }

    await deleteSeedsEverywhere(ctx, owner, budget);

    // PVE refuses to destroy a protected VM; deleting it is what the program asked for.
    if (readFlag(config, "protection")) {
      const step = `${label}: turning protection off to destroy it`;
      ctx.progress(step);
      const off = await ctx.api.updateVmConfig(vm.node, vm.vmid, { delete: ["protection"] });
      if (off) await ctx.waitForTask(vm.node, off, { budgetMs: budget, step });
    }

    ctx.progress(`${label}: destroying`);
    const upid = await ctx.api.destroyVm(vm.node, vm.vmid);
    await ctx.waitForTask(vm.node, upid, { budgetMs: budget, step: `${label}: destroying` });
  });
}

/** A stop or destroy task that failed because the VM's config no longer exists. */
function goneInTask(error: unknown): boolean {
  return hasCode(error, "TASK_FAILED") && error.context.taskErrorCode === "NOT_FOUND";
}
