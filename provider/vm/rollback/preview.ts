/**
 * The preview of a protected update, run by `check` for a resource the stack has when
 * `rollbackOnFailure` is on: what PVE cannot snapshot, or refuses to do while the snapshot exists,
 * becomes a check failure naming the input, the disk and its storage, so the preview and the `up`
 * fail before anything is written. `check` runs only with the program (never for a refresh's
 * diff, whose inputs are the stored ones). Costs three reads: the cluster's VM listing (shared by
 * the resources of the run), the VM's config and its node's storages. Anything else that fails
 * (the cluster unreachable, the VM gone, a plan check refuses) is met again by the update, which
 * checks the same before its snapshot.
 */
import type { CheckFailure } from "../../inputs/check-failure";
import type { OperationContext } from "../../pve/context";
import { adoptedVmid } from "../operations/check-adopt";
import { planDisks } from "../steps/disk-step";
import {
  adoptionNaming,
  namingOf,
  withDefaults,
  type ResolvedInputs,
} from "../steps/resolved-inputs";
import { disruptionsOf } from "./disruption";
import { rollbackSettings } from "./protect";
import { snapshotRefusals } from "./refusals";

export async function previewRollback(
  ctx: OperationContext,
  news: ResolvedInputs,
): Promise<CheckFailure[]> {
  if (rollbackSettings(news.rollbackOnFailure) === undefined) return [];
  const adopted = adoptedVmid(news);
  try {
    const row = (await ctx.api.clusterVms()).find(
      (vm) =>
        vm.type === "qemu" &&
        vm.template !== true &&
        (adopted === undefined ? vm.name === namingOf(news).vmName : vm.vmid === adopted),
    );
    if (row === undefined) return [];
    const vm = { node: row.node, vmid: row.vmid };
    const naming = adopted === undefined ? namingOf(news) : adoptionNaming(news, row.name);
    const desired = adopted === undefined ? withDefaults(news) : news;
    const known = await ctx.api.vmPending(vm.node, vm.vmid);
    const plan = { vm, known, desired, naming, adopted: adopted !== undefined };
    if (disruptionsOf(plan).length === 0) return [];
    return snapshotRefusals({
      vm,
      config: known.config,
      storages: await ctx.api.nodeStorages(vm.node),
      desired,
      work: planDisks(vm, known.config, desired),
    });
  } catch {
    return [];
  }
}
