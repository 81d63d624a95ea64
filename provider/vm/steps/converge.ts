/**
 * Brings an existing VM to the desired settings, step by step, each step idempotent: seed,
 * config, disks, pool, power, guest agent, and finally the "complete" mark. Create runs it right
 * after the clone; update runs it for in-place changes and to finish a create that failed midway.
 * Re-running it after any failure picks up where the last run stopped.
 */
import type { GuestInterface, VmPendingConfig } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { nicKey, nicsOf } from "../spec/network";
import { attachNewNics, markComplete, writeConfigChanges } from "./config-step";
import { seenIn, type ConvergeRun } from "./converge-run";
import { planDisks, runDiskWork } from "./disk-step";
import { waitForAddress } from "./guest-address";
import { moveBackIfMoved } from "./move-back";
import { ensurePool } from "./pool-step";
import { ensurePower } from "./power-step";
import type { Naming, ResolvedInputs } from "./resolved-inputs";
import { dropOldSeed, uploadSeed } from "./seed-step";
import type { VmLocation } from "./vm-location";

/** Where the VM runs after converge, and the pool it is in when the program names one. */
export interface ConvergedVm extends VmLocation {
  readonly pool?: string | undefined;
  /**
   * The guest agent's answer that ended the wait for the VM's address, when converge waited for
   * one: what observe would ask again a moment later, so it reads the addresses from here.
   */
  readonly guestInterfaces?: readonly GuestInterface[] | undefined;
}

export interface ConvergeOptions {
  /** The config the caller just read at `found`, to save reading it again. */
  readonly known?: VmPendingConfig | undefined;
  /** The pool the program named before and no longer does: the VM leaves it. */
  readonly leftPool?: string | undefined;
  /**
   * The VM was cloned from a template by this create a moment ago, so it is stopped (a clone of
   * a template never runs): its status is not read before starting it. Should someone start it
   * in between, the start ends ALREADY_RUNNING, which reaches the goal all the same.
   */
  readonly justCloned?: boolean | undefined;
  /**
   * Called once, before the first write, with where the VM is and its config as converge read
   * it: `rollbackOnFailure` snapshots the VM here when the update is disruptive.
   */
  readonly beforeWrites?: BeforeWrites | undefined;
}

/** What runs before converge's first write (after a move back, which writes nothing of ours). */
export type BeforeWrites = (vm: VmLocation, known: VmPendingConfig) => Promise<void>;

/** Converges the VM and resolves with where it now runs. */
export async function converge(
  ctx: OperationContext,
  found: VmLocation,
  desired: ResolvedInputs,
  naming: Naming,
  options: ConvergeOptions = {},
): Promise<ConvergedVm> {
  const budgetMs = desired.timeouts.taskMs;
  const justCloned = options.justCloned === true;
  const vm = await moveBackIfMoved(ctx, found, desired, budgetMs);
  const run: ConvergeRun = { ctx, vm, desired, naming, budgetMs };
  const nics = nicsOf(desired);
  const read =
    options.known !== undefined && vm === found
      ? options.known
      : await ctx.api.vmPending(vm.node, vm.vmid);
  await options.beforeWrites?.(vm, read);
  // A NIC that does not exist yet gets its MAC from PVE before the seed names it.
  const known = await attachNewNics(run, read, nics);
  const config = known.config;
  const seen = seenIn(config, nics);
  const seed = await uploadSeed(run, config, nics, seen);
  // A shrink was refused by check; refused again here, before anything is written.
  const diskWork = planDisks(vm, config, desired);
  const seenNow = { ...seen, seedVolid: seed.volid, config };
  const written = await writeConfigChanges(run, config, seenNow, justCloned);
  await runDiskWork(ctx, vm, diskWork, budgetMs);
  // The pool is kept outside the config and changes at once; a fresh clone joined it already.
  if (!justCloned) await ensurePool(ctx, vm, desired.pool, options.leftPool);
  await ensurePower(run, {
    known,
    seen,
    written,
    previousSeed: seed.previous,
    seedChanged: seed.previous !== seed.volid,
    justCloned,
  });
  await dropOldSeed(run, seed);
  const guestInterfaces =
    desired.started && desired.waitForIp
      ? await waitForAddress(ctx, vm, seen.macs[nicKey(0)], {
          budgetMs: desired.timeouts.agentMs,
          template: String(desired.template),
        })
      : undefined;
  await markComplete(run, config, written);
  return {
    ...vm,
    ...(desired.pool === undefined ? {} : { pool: desired.pool }),
    ...(guestInterfaces === undefined ? {} : { guestInterfaces }),
  };
}
