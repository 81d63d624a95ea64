/**
 * Converges a VM taken over by `adopt: { vmid }`: only what the program sets is written, in one
 * config write that also carries the mark (below the VM's own description text). No seed, no
 * guest agent wait, no power change unless the program sets `started`, no move back to `node`.
 *
 * The mark and the program's settings go in the same write, so a kill at any request leaves
 * either an unmarked VM (the next `up` adopts it again and finds the settings made) or a marked
 * one (the next `up` finds its own mark and finishes), never half of the pair.
 */
import type { VmPendingConfig } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { keysWithInputs } from "../spec/apply";
import { restartingDisks } from "../spec/disks";
import { guestRunning } from "../state/vm-facts";
import { adoptionWrite } from "./adopt-vm";
import type { ConvergedVm } from "./converge";
import { powerTask, rebootWaits, writeConfig } from "./converge";
import { planDisks, runDiskWork } from "./disk-step";
import { ensurePool } from "./pool-step";
import type { Naming, ResolvedInputs } from "./resolved-inputs";
import type { VmLocation } from "./vm-location";

export async function convergeAdopted(
  ctx: OperationContext,
  vm: VmLocation,
  desired: ResolvedInputs,
  naming: Naming,
  options: { readonly known?: VmPendingConfig | undefined; readonly leftPool?: string | undefined },
): Promise<ConvergedVm> {
  const budget = desired.timeouts.taskMs;
  const label = `VM ${vm.vmid} on ${vm.node}`;
  if (vm.node !== desired.node && desired.nodeDrift !== "accept") {
    ctx.warn(
      `${label}: the program places it on ${desired.node}; an adopted VM is not moved back. ` +
        `Migrate it there, or set nodeDrift: "accept".`,
    );
  }
  const known = options.known ?? (await ctx.api.vmPending(vm.node, vm.vmid));
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
    await writeConfig(ctx, vm, `configuring ${keys.join(", ")}`, budget, () =>
      ctx.api.updateVmConfig(vm.node, vm.vmid, update),
    );
  }
  await runDiskWork(ctx, vm, diskWork, budget);
  await ensurePool(ctx, vm, desired.pool, options.leftPool);

  const status = await ctx.api.vmStatus(vm.node, vm.vmid);
  const running = guestRunning(status.status, status.qmpstatus);
  const written = Object.keys(set).filter((key) => key !== "description");
  const waiting = running
    ? [
        ...rebootWaits(known, desired, seen, written, false),
        ...restartingDisks(config, set, deleted),
      ]
    : [];
  if (desired.started === true && !running) {
    await powerTask(ctx, vm, "starting", () => ctx.api.startVm(vm.node, vm.vmid), budget, {
      haWaitFor: "running",
    });
  } else if (desired.started === false && running) {
    await powerTask(
      ctx,
      vm,
      "shutting down",
      () => ctx.api.shutdownVm(vm.node, vm.vmid, 60),
      budget,
      {
        haWaitFor: "stopped",
      },
    );
  } else if (waiting.length > 0 && desired.rebootPolicy === "allow") {
    await powerTask(
      ctx,
      vm,
      `rebooting to apply ${waiting.join(", ")}`,
      () => ctx.api.rebootVm(vm.node, vm.vmid),
      budget,
    );
  } else if (waiting.length > 0) {
    ctx.warn(
      `${label}: ${waiting.join(", ")} wait for the next reboot (rebootPolicy is "never"); ` +
        "they stay in pendingChanges and show as drift until the VM reboots.",
    );
  }
  return { ...vm, ...(desired.pool === undefined ? {} : { pool: desired.pool }) };
}
