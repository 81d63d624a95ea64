/**
 * read (refresh): where the VM is and what it looks like now.
 *
 * One shared cluster listing answers "does it exist, and on which node" for every VM of the
 * process; then the VM's own config and status are read live (the listing's status lags). A VM
 * that is gone — or whose VMID now holds someone else's VM — reads as gone, and Pulumi drops it.
 */
import type { OperationContext } from "../context";
import { TransientError, hasCode } from "../errors";
import { readMark } from "../identity";
import type { VmState } from "../state/vm-state";
import { locate } from "./locate";
import { observe } from "./observe";
import { poolOf } from "./pool-step";
import { namingFromState, type ResolvedInputs } from "./resolved-inputs";

export async function readVm(ctx: OperationContext, state: VmState): Promise<VmState | undefined> {
  const inputs = state as unknown as ResolvedInputs;
  let row = await locate(ctx, state.vmid, false);
  for (let attempt = 0; row; attempt++) {
    try {
      const known = await ctx.api.vmPending(row.node, row.vmid);
      if (readMark(known.config.description)?.id !== state.identityHash) return undefined;
      // Read only when the program names a pool: one it never named is not drift.
      const pool = inputs.pool === undefined ? undefined : await poolOf(ctx, row.vmid);
      return await observe(
        ctx,
        { node: row.node, vmid: row.vmid, pool },
        inputs,
        namingFromState(state, inputs),
        known,
      );
    } catch (error) {
      // Moved or deleted between the listing and the read: look again, once, with a fresh listing.
      if (hasCode(error, "NOT_FOUND") && attempt === 0) {
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
