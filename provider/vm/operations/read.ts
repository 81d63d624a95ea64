/**
 * read (refresh): where the VM is and what it looks like now.
 *
 * One shared cluster listing answers "does it exist, and on which node" for every VM of the
 * process, and one shared listing per node (`/nodes/{node}/qemu?full=1`, live, unlike the
 * cluster listing whose status lags) gives every VM's power state; the VM's own config (with its
 * pending changes) is read live. A VM that is gone — or whose VMID now holds someone else's VM —
 * reads as gone, and Pulumi drops it.
 */
import type { ClusterVm, VmStatus } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { TransientError, hasCode } from "../../pve/errors";
import { readMark } from "../identity";
import type { VmState } from "../state/vm-state";
import { locate } from "../steps/locate";
import { observe } from "../steps/observe";
import { poolOf } from "../steps/pool-step";
import { namingFromState, type ResolvedInputs } from "../steps/resolved-inputs";

export async function readVm(ctx: OperationContext, state: VmState): Promise<VmState | undefined> {
  const inputs = state as unknown as ResolvedInputs;
  let row = await locate(ctx, state.vmid, false);
  for (let attempt = 0; row; attempt++) {
    try {
      const [known, status, pool] = await Promise.all([
        ctx.api.vmPending(row.node, row.vmid),
        listedStatus(ctx, row),
        // Read only when the program names a pool: one it never named is not drift.
        inputs.pool === undefined ? undefined : poolOf(ctx, row.vmid),
      ]);
      if (readMark(known.config.description)?.id !== state.identityHash) return undefined;
      return await observe(
        ctx,
        { node: row.node, vmid: row.vmid, pool },
        inputs,
        namingFromState(state, inputs),
        { pending: known, status },
      );
    } catch (error) {
      // Moved or deleted between the listings and the read: look again, once, with fresh ones.
      if (hasCode(error, "NOT_FOUND") && attempt === 0) {
        ctx.api.invalidateNodeVms?.();
        row = await locate(ctx, state.vmid, true);
        continue;
      }
      if (hasCode(error, "UNAVAILABLE") && row.status === "unknown") {
        throw new TransientError(
          "UNAVAILABLE",
          `VM ${row.vmid} is listed with status unknown: its node ${row.node} is not answering, ` +
            "or the VM is too new to be reported yet. Retry in a few seconds.",
          { node: row.node, vmid: row.vmid },
          { cause: error },
        );
      }
      throw error;
    }
  }
  return undefined;
}

/**
 * The VM's live status from its node's shared listing: one request per node for the whole
 * refresh. A VM the listing does not hold yet (it predates a clone of this run) is asked for on
 * its own.
 */
async function listedStatus(ctx: OperationContext, row: ClusterVm): Promise<VmStatus> {
  const listed = (await ctx.api.nodeVms(row.node)).find((vm) => vm.vmid === row.vmid);
  return listed ?? (await ctx.api.vmStatus(row.node, row.vmid));
}
