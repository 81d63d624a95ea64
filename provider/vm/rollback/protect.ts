/**
 * `rollbackOnFailure`: an update that is disruptive (disruption.ts) runs under a snapshot taken
 * just before its first write. When the update fails, or the VM does not come back (not running
 * when it ran before; the guest agent's address when `waitForIp`, which converge waits for), the
 * VM is rolled back to the snapshot, started when it ran, and the snapshot deleted; the update
 * fails with its own cause and "rolled back to the state before this update", so Pulumi keeps
 * the old inputs. On success the snapshot is deleted, or kept (the last `keep`).
 *
 * A run killed in between leaves the snapshot with its "in progress" description
 * (snapshot-name.ts): the next update of the VM finds it and finishes under it — applies, or
 * rolls back to it — instead of taking another; `pulumi-proxmox sweep` lists it.
 */
import type { VmConfig, VmPendingConfig } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { PermanentError, isProxmoxError, vmLabel, type ErrorCode } from "../../pve/errors";
import {
  deleteSnapshot,
  listSnapshots,
  rollbackToSnapshot,
  takeSnapshot,
} from "../../pve/snapshot-tasks";
import { guestRunning } from "../state/vm-facts";
import type { BeforeWrites, ConvergedVm } from "../steps/converge";
import { planDisks } from "../steps/disk-step";
import type { Naming, ResolvedInputs } from "../steps/resolved-inputs";
import type { VmLocation } from "../steps/vm-location";
import { disruptionsOf } from "./disruption";
import { snapshotRefusals } from "./refusals";
import { IN_PROGRESS, isLeftOver, updateSnapshotName } from "./snapshot-name";
import { dropAddedVolumes, finishSnapshot, startAgain, unfinishedUpdateOf } from "./snapshot-steps";

/** `rollbackOnFailure` resolved: how many snapshots of successful updates to keep, and RAM. */
export interface RollbackSettings {
  readonly keep: number;
  readonly includeRam: boolean;
}

/** The input's value as settings; undefined when it is off. */
export function rollbackSettings(value: unknown): RollbackSettings | undefined {
  if (value === true) return { keep: 0, includeRam: false };
  if (typeof value !== "object" || value === null) return undefined;
  const set = value as { keep?: number; includeRam?: boolean };
  return { keep: set.keep ?? 0, includeRam: set.includeRam ?? false };
}

/**
 * The update ended with the VM as it was before it: refused before its first write, or rolled
 * back. Not a partial update: Pulumi keeps the old inputs, and the next `up` tries again.
 */
export class UpdateUndoneError extends PermanentError {}

export interface GuardedUpdate {
  readonly ctx: OperationContext;
  readonly settings: RollbackSettings;
  readonly desired: ResolvedInputs;
  readonly naming: Naming;
  /** A VM taken over by `adopt: { vmid }` (no seed of ours). */
  readonly adopted: boolean;
  /** The VM's config as the update found it. */
  readonly found: VmConfig;
}

/** The snapshot an update runs under. */
export interface Taken {
  readonly vm: VmLocation;
  readonly name: string;
  readonly wasRunning: boolean;
  /** The config before the update: volumes it added are the ones a rollback leaves unused. */
  readonly before: VmConfig;
}

/** Runs `apply` (converge, given the hook it calls before its first write) under a snapshot. */
export async function withRollback(
  update: GuardedUpdate,
  apply: (beforeWrites: BeforeWrites) => Promise<ConvergedVm>,
): Promise<ConvergedVm> {
  let taken: Taken | undefined;
  const beforeWrites: BeforeWrites = async (vm, known) => {
    taken = await takeIfDisruptive(update, vm, known);
  };
  let now: ConvergedVm;
  try {
    now = await apply(beforeWrites);
    // Nothing was written, so nothing was taken; the update a killed run left (after its last
    // write, say) is finished here: checked, then its snapshot deleted or rolled back to.
    taken ??= await leftOverAfter(update, now);
    if (taken !== undefined) await assertCameBack(update, taken, now);
  } catch (cause) {
    if (taken === undefined) throw cause;
    throw await rollBack(update, taken, cause);
  }
  if (taken !== undefined) await finishSnapshot(update.ctx, taken, update.settings.keep);
  return now;
}

const budget = (update: GuardedUpdate) => update.desired.timeouts.taskMs;

/** The snapshot of an update a killed run left, when the VM's state descends from it. */
async function leftOverAfter(update: GuardedUpdate, vm: VmLocation): Promise<Taken | undefined> {
  const name = await unfinishedUpdateOf(update.ctx, vm, update.found);
  if (name === undefined) return undefined;
  update.ctx.progress(
    `${vmLabel(vm)}: finishing the update an interrupted run left under snapshot ${name}`,
  );
  // Whether it ran before that update is lost with the run: the program's `started` stands in.
  return { vm, name, wasRunning: update.desired.started === true, before: update.found };
}

/**
 * The snapshot a killed run left, which this run finishes under; else a new one when the update
 * is disruptive and PVE can snapshot the VM and then make the update; else none.
 */
async function takeIfDisruptive(
  update: GuardedUpdate,
  vm: VmLocation,
  known: VmPendingConfig,
): Promise<Taken | undefined> {
  const { ctx, desired, settings } = update;
  const label = vmLabel(vm);
  const [listed, status] = await Promise.all([
    listSnapshots(ctx, vm),
    ctx.api.vmStatus(vm.node, vm.vmid),
  ]);
  const wasRunning = guestRunning(status.status, status.qmpstatus);
  const left = listed.snapshots.find(isLeftOver);
  if (left !== undefined) {
    ctx.progress(
      `${label}: finishing the update an interrupted run left under snapshot ${left.name}`,
    );
    ctx.progress(`${label}: applying`);
    return { vm, name: left.name, wasRunning, before: known.config };
  }
  const reasons = disruptionsOf({
    vm,
    known,
    desired,
    naming: update.naming,
    adopted: update.adopted,
  });
  if (reasons.length === 0) return undefined;
  const refusals = snapshotRefusals({
    vm,
    config: known.config,
    storages: await ctx.api.nodeStorages(vm.node),
    desired,
    work: planDisks(vm, known.config, desired),
  });
  if (refusals.length > 0) {
    throw new UpdateUndoneError(
      "UNSUPPORTED",
      refusals.map((f) => `${f.property}: ${f.reason}`).join(" "),
      vm,
    );
  }
  // The update is named by what it changes, never by the values (cloud-init may hold secrets).
  const name = updateSnapshotName(
    { identity: update.naming.identity, reasons },
    Date.now(),
    new Set(listed.snapshots.map((snapshot) => snapshot.name)),
  );
  ctx.progress(`${label}: the update is disruptive: ${reasons.join(", ")}`);
  try {
    const request = {
      name,
      description: IN_PROGRESS,
      vmstate: settings.includeRam && wasRunning,
    };
    await takeSnapshot(ctx, vm, request);
  } catch (error) {
    const why = (error instanceof Error ? error.message : String(error)).replace(/\.+$/, "");
    throw new UpdateUndoneError(
      codeOf(error),
      `rollbackOnFailure: taking snapshot ${name} of ${label} failed: ${why}. Nothing was ` +
        "changed; the next `pulumi up` tries again.",
      vm,
      { cause: error },
    );
  }
  ctx.progress(`${label}: snapshot taken (${name})`);
  ctx.progress(`${label}: applying`);
  return { vm, name, wasRunning, before: known.config };
}

/** A VM that ran before the update and should run after it runs; converge waited for its address. */
async function assertCameBack(
  update: GuardedUpdate,
  taken: Taken,
  now: ConvergedVm,
): Promise<void> {
  if (!taken.wasRunning || !update.desired.started) return;
  const status = await update.ctx.api.vmStatus(now.node, now.vmid);
  if (guestRunning(status.status, status.qmpstatus)) return;
  throw new PermanentError(
    "BAD_STATE",
    `${vmLabel(now)} did not come back: it ran before the update and is ` +
      `${status.qmpstatus ?? status.status} after it.`,
    now,
  );
}

/**
 * Rolls back to the snapshot, drops the volumes the update added (PVE's rollback keeps them as
 * unused disks), starts the VM when it ran, deletes the snapshot, and returns the error the
 * update fails with. When the rollback itself fails, the snapshot stays for the next run.
 */
async function rollBack(update: GuardedUpdate, taken: Taken, cause: unknown): Promise<Error> {
  const { ctx } = update;
  const { vm, name } = taken;
  const why = (cause instanceof Error ? cause.message : String(cause)).replace(/\.+$/, "");
  const label = vmLabel(vm);
  const started = Date.now();
  ctx.progress(`${label}: rolling back (${why.split("\n")[0] ?? why})`);
  try {
    await rollbackToSnapshot(ctx, vm, name, { start: false });
    await dropAddedVolumes(ctx, vm, taken.before, budget(update));
    if (taken.wasRunning) await startAgain(ctx, vm, budget(update));
    await deleteSnapshot(ctx, vm, name);
  } catch (error) {
    const failed = (error instanceof Error ? error.message : String(error)).replace(/\.+$/, "");
    return new PermanentError(
      codeOf(cause),
      `${why}; rolling back to snapshot ${name} failed too: ${failed}. The snapshot is kept: ` +
        "the next `pulumi up` finishes the update under it (or rolls back again), and " +
        "`pulumi-proxmox sweep` lists it.",
      vm,
      { cause },
    );
  }
  ctx.progress(`${label}: rolled back in ${Math.round((Date.now() - started) / 1000)} s`);
  return new UpdateUndoneError(
    codeOf(cause),
    `${why}; rolled back to the state before this update (snapshot ${name}, now deleted)` +
      `${taken.wasRunning ? " and started again" : ""}. The VM keeps its old settings and ` +
      "the next `pulumi up` tries the update again.",
    vm,
    { cause },
  );
}

const codeOf = (error: unknown): ErrorCode => (isProxmoxError(error) ? error.code : "TASK_FAILED");
