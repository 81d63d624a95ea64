/**
 * The power step of `converge`: start or shut down the VM as `started` says, or reboot a running
 * VM onto what it takes only at boot, as `rebootPolicy` allows.
 */
import type { VmPendingConfig } from "../../pve/api/proxmox-api";
import { isProxmoxError } from "../../pve/errors";
import { managedKeys, waitingKeys } from "../spec/apply";
import { restartingDisks } from "../spec/disks";
import type { Seen } from "../spec/field";
import { guestRunning } from "../state/vm-facts";
import type { ConfigWrite } from "./config-step";
import type { ConvergeRun } from "./converge-run";
import { isHaRequest, waitForPowerState } from "./power-state";

/** What the power step needs to know of the steps before it. */
export interface PowerFacts {
  /** The config and pending keys as converge read them, before its own writes. */
  readonly known: VmPendingConfig;
  readonly seen: Seen;
  readonly written: ConfigWrite;
  /** The seed attached before this run (none on a fresh clone) and whether it changed. */
  readonly previousSeed: string | undefined;
  readonly seedChanged: boolean;
  /** A VM cloned a moment ago is stopped: its status is not read. */
  readonly justCloned: boolean;
}

export async function ensurePower(run: ConvergeRun, facts: PowerFacts): Promise<void> {
  const { ctx, vm, desired } = run;
  const status = facts.justCloned ? undefined : await ctx.api.vmStatus(vm.node, vm.vmid);
  const running = status !== undefined && guestRunning(status.status, status.qmpstatus);
  const waiting = running
    ? [
        ...rebootWaits(run, facts),
        ...restartingDisks(facts.known.config, facts.written.set, facts.written.deleted),
      ]
    : [];
  const needsReboot = waiting.length > 0 && facts.previousSeed !== undefined;
  if (desired.started && !running) {
    await powerTask(run, "starting", () => ctx.api.startVm(vm.node, vm.vmid), "running").catch(
      (error: unknown) => {
        // Someone started it between our status read and our start (e.g. the provider process
        // of an interrupted run, still finishing): the goal is reached.
        if (!(isProxmoxError(error) && error.context.taskErrorCode === "ALREADY_RUNNING"))
          throw error;
      },
    );
  } else if (!desired.started && running) {
    await powerTask(
      run,
      "shutting down",
      () => ctx.api.shutdownVm(vm.node, vm.vmid, 60),
      "stopped",
    );
  } else if (needsReboot && desired.rebootPolicy === "allow") {
    await powerTask(run, `rebooting to apply ${waiting.join(", ")}`, () =>
      ctx.api.rebootVm(vm.node, vm.vmid),
    );
  } else if (needsReboot) {
    ctx.warn(
      `VM ${vm.vmid} on ${vm.node}: ${waiting.join(", ")} wait for the next reboot ` +
        '(rebootPolicy is "never"); they stay in pendingChanges and show as drift until the VM ' +
        "reboots.",
    );
  }
}

/**
 * What a running VM takes only at its next reboot: the keys just written that PVE keeps under
 * `/pending`, the program's keys already waiting there (a change an earlier `up` left pending),
 * and a changed seed, which the guest reads at boot.
 */
function rebootWaits({ desired }: ConvergeRun, facts: PowerFacts): string[] {
  const { known, seen } = facts;
  const managed = managedKeys(desired, seen);
  const keys = new Set([
    ...waitingKeys(Object.keys(facts.written.set), desired, seen, known.current),
    ...known.pending.filter((key) => managed.includes(key)),
  ]);
  if (facts.seedChanged) keys.add("ide2 (the cloud-init seed)");
  return [...keys];
}

async function powerTask(
  { ctx, vm, budgetMs }: ConvergeRun,
  step: string,
  dispatch: () => Promise<string>,
  /** The state to wait for when PVE answers with an HA request instead of doing the work. */
  haWaitFor?: "running" | "stopped",
): Promise<void> {
  const label = `VM ${vm.vmid} on ${vm.node}: ${step}`;
  ctx.progress(label);
  const upid = await dispatch();
  await ctx.waitForTask(vm.node, upid, { budgetMs, step: label });
  if (haWaitFor !== undefined && isHaRequest(upid))
    await waitForPowerState(ctx, vm, haWaitFor, budgetMs);
}
