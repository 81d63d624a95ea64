/**
 * update: in-place changes (cores, memory, disk growth, tags, description, power, network,
 * cloud-init re-seed) by converging the existing VM, then reading it back. Also how a create
 * that failed midway is finished: the engine sends a resource with init errors to update.
 * With `rollbackOnFailure`, a disruptive update runs under a snapshot (rollback/protect.ts).
 */
import type { OperationContext } from "../../pve/context";
import { PermanentError, vmLabel } from "../../pve/errors";
import { readMark } from "../identity";
import type { VmState } from "../state/vm-state";
import { VmInitError } from "../init-error";
import { converge, type BeforeWrites } from "../steps/converge";
import { UpdateUndoneError, rollbackSettings, withRollback } from "../rollback/protect";
import { convergeAdopted } from "../steps/converge-adopted";
import { adoptedVmid } from "./check-adopt";
import { observe } from "../steps/observe";
import { namingFromState, withDefaults, type ResolvedInputs } from "../steps/resolved-inputs";

export async function updateVm(
  ctx: OperationContext,
  olds: VmState,
  news: ResolvedInputs,
  stateExtras: Record<string, unknown> = {},
): Promise<VmState> {
  const naming = namingFromState(olds, news);
  const vm = { node: olds.currentNode, vmid: olds.vmid };
  try {
    return await ctx.withLock(`vm:${vm.vmid}`, async () => {
      const known = await ctx.api.vmPending(vm.node, vm.vmid);
      if (readMark(known.config.description)?.id !== naming.identity) {
        throw new PermanentError(
          "NOT_OURS",
          `${vmLabel(vm)} no longer carries this resource's mark; nothing was ` +
            "changed. Run `pulumi refresh` to see what happened to it.",
          vm,
        );
      }
      // A pool the program no longer names is left; one it never named is not the program's.
      const leftPool = news.pool === undefined ? olds.pool : undefined;
      // The VM adopt names keeps the adoption's rule: only what the program sets is written.
      const adopted = adoptedVmid(news) === vm.vmid;
      const desired = adopted ? news : withDefaults(news);
      const apply = (beforeWrites?: BeforeWrites) =>
        adopted
          ? convergeAdopted(ctx, vm, news, naming, { known, leftPool, beforeWrites })
          : converge(ctx, vm, desired, naming, { known, leftPool, beforeWrites });
      const settings = rollbackSettings(news.rollbackOnFailure);
      const now =
        settings === undefined
          ? await apply()
          : await withRollback(
              { ctx, settings, desired, naming, adopted, found: known.config },
              apply,
            );
      return await observe(ctx, now, news, naming);
    });
  } catch (error) {
    if (error instanceof PermanentError && error.code === "NOT_OURS") throw error;
    // Refused before its first write, or rolled back: the old inputs describe the VM.
    if (error instanceof UpdateUndoneError) throw error;
    // Keep the VM in state with the new inputs, so the next `up` retries the update.
    throw new VmInitError(vm.vmid, { ...olds, ...stateExtras, ...news }, error);
  }
}
