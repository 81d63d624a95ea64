/**
 * The preview of a protected update, run by `diff` when `rollbackOnFailure` is on and the VM is
 * changed in place: what PVE cannot snapshot, or refuses to do while the snapshot exists, fails
 * the preview (and the `up`) before anything is written, naming the input, the disk and its
 * storage. Costs two reads: the VM's config and its node's storages. An unreachable cluster is
 * left to the update, which checks the same before its snapshot.
 */
import type { OperationContext } from "../../pve/context";
import { PermanentError, isPermanent } from "../../pve/errors";
import { adoptedVmid } from "../operations/check-adopt";
import { planDisks } from "../steps/disk-step";
import { namingFromState, withDefaults, type ResolvedInputs } from "../steps/resolved-inputs";
import type { VmState } from "../state/vm-state";
import { disruptionsOf } from "./disruption";
import { rollbackSettings } from "./protect";
import { snapshotRefusals } from "./refusals";

export async function previewRollback(
  ctx: OperationContext,
  olds: VmState,
  news: ResolvedInputs,
): Promise<void> {
  if (rollbackSettings(news.rollbackOnFailure) === undefined) return;
  const vm = { node: olds.currentNode, vmid: olds.vmid };
  const adopted = adoptedVmid(news) === vm.vmid;
  const desired = adopted ? news : withDefaults(news);
  let failures;
  try {
    const known = await ctx.api.vmPending(vm.node, vm.vmid);
    const naming = namingFromState(olds, news);
    if (disruptionsOf({ vm, known, desired, naming, adopted }).length === 0) return;
    failures = snapshotRefusals({
      vm,
      config: known.config,
      storages: await ctx.api.nodeStorages(vm.node),
      desired,
      work: planDisks(vm, known.config, desired),
    });
  } catch (error) {
    // A refusal of the plan itself (a shrink) is check's; anything else is met by the update.
    if (isPermanent(error) && error.code !== "NOT_FOUND") throw error;
    return;
  }
  if (failures.length === 0) return;
  throw new PermanentError(
    "UNSUPPORTED",
    failures.map((failure) => `${failure.property}: ${failure.reason}`).join("\n"),
    vm,
  );
}
