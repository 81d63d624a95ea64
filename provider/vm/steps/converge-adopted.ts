/**
 * Converges a VM taken over by `adopt: { vmid }`: only what the program sets is written, in one
 * config write that also carries the mark (below the VM's own description text). No seed, no
 * guest agent wait, no power change unless the program sets `started`, no move back to `node`.
 *
 * The mark and the program's settings go in the same write, so a kill at any request leaves
 * either an unmarked VM (the next `up` adopts it again and finds the settings made) or a marked
 * one (the next `up` finds its own mark and finishes), never half of the pair.
 */
import type { OperationContext } from "../../pve/context";
import { keysWithInputs } from "../spec/apply";
import { adoptionWrite } from "./adopt-vm";
import type { ConvergedVm, ConvergeOptions } from "./converge";
import { writeConfig, type ConvergeRun } from "./converge-run";
import { planDisks, runDiskWork } from "./disk-step";
import { ensurePool } from "./pool-step";
import { ensurePower } from "./power-step";
import type { Naming, ResolvedInputs } from "./resolved-inputs";
import type { VmLocation } from "./vm-location";

export async function convergeAdopted(
  ctx: OperationContext,
  vm: VmLocation,
  desired: ResolvedInputs,
  naming: Naming,
  options: Pick<ConvergeOptions, "known" | "leftPool" | "beforeWrites">,
): Promise<ConvergedVm> {
  const run: ConvergeRun = { ctx, vm, desired, naming, budgetMs: desired.timeouts.taskMs };
  if (vm.node !== desired.node && desired.nodeDrift !== "accept") {
    ctx.warn(
      `VM ${vm.vmid} on ${vm.node}: the program places it on ${desired.node}; an adopted VM is ` +
        `not moved back. Migrate it there, or set nodeDrift: "accept".`,
    );
  }
  const known = options.known ?? (await ctx.api.vmPending(vm.node, vm.vmid));
  await options.beforeWrites?.(vm, known);
  const config = known.config;
  const { set, deleted, seen } = adoptionWrite(config, desired, naming);
  // A shrink was refused by check; refused again here, before anything is written.
  const diskWork = planDisks(vm, config, desired);

  if (Object.keys(set).length > 0 || deleted.length > 0) {
    const keys = [
      ...keysWithInputs(Object.keys(set), desired, seen),
      ...keysWithInputs(deleted, desired, seen).map((key) => `${key} (removed)`),
    ];
    const update = { set, ...(deleted.length > 0 ? { delete: deleted } : {}) };
    await writeConfig(run, `configuring ${keys.join(", ")}`, () =>
      ctx.api.updateVmConfig(vm.node, vm.vmid, update),
    );
  }
  await runDiskWork(ctx, vm, diskWork, run.budgetMs);
  await ensurePool(ctx, vm, desired.pool, options.leftPool);
  // `started` unset leaves the power state; a change that waits for a reboot gets one as
  // `rebootPolicy` allows (an adopted VM has no seed of ours, so none is "previous").
  await ensurePower(run, {
    known,
    seen,
    written: { set, deleted },
    previousSeed: undefined,
    seedChanged: false,
    justCloned: false,
    adopted: true,
  });
  return { ...vm, ...(desired.pool === undefined ? {} : { pool: desired.pool }) };
}
