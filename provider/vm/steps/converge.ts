/**
 * Brings an existing VM to the desired settings, step by step, each step idempotent: seed,
 * config, disks, power, guest agent, and finally the "complete" mark. Create runs it right after
 * the clone; update runs it for in-place changes and to finish a create that failed midway.
 * Re-running it after any failure picks up where the last run stopped.
 */
import type { GuestInterface, VmConfig, VmPendingConfig } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { pollUntil, proportional } from "../../pve/poll";
import { TransientError, aboutVm, hasCode, isProxmoxError } from "../../pve/errors";
import { describe, markFor, readMark } from "../identity";
import {
  configDeletes,
  configChanges as specChanges,
  keysWithInputs,
  managedKeys,
  waitingKeys,
} from "../spec/apply";
import { restartingDisks } from "../spec/disks";
import type { Seen } from "../spec/field";
import { nicKey, nicsOf, type VmNics } from "../spec/network";
import { ownAddresses } from "../state/guest-addresses";
import { cdromVolid, doesStorageWork, guestRunning, parseNic } from "../state/vm-facts";
import { planDisks, runDiskWork } from "./disk-step";
import { ensurePool } from "./pool-step";
import { isHaRequest, waitForPowerState } from "./power-state";
import type { Naming, ResolvedInputs } from "./resolved-inputs";
import { buildVmSeed, deleteSeedsEverywhere, ensureSeedUploaded } from "./seed-step";
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
}

/**
 * The agent is polled every 250 ms at first, then at a fifth of the time waited, up to every
 * 2 s: a boot is seen at most 20 % late (10 % on average), or 2 s on a long one. Growing ×1.5
 * per poll, as it did, saw a boot of a few seconds up to 50 % late (25 % on average): at 50 VMs
 * that was the largest wait no PVE task accounted for. Once a guest of the same template has
 * answered in this process, the wait first stays quiet for 90 % of the shortest boot seen: a
 * deployment of N VMs pays the early polls once, not N times.
 */
const AGENT_POLL_FIRST_MS = 250;
const AGENT_POLL_MAX_MS = 2_000;
const AGENT_POLL_RATIO = 0.2;

/** Converges the VM and resolves with where it now runs. */
export async function converge(
  ctx: OperationContext,
  found: VmLocation,
  desired: ResolvedInputs,
  naming: Naming,
  options: ConvergeOptions = {},
): Promise<ConvergedVm> {
  const knownConfig = options.known;
  const budget = desired.timeouts.taskMs;
  const vm = await moveBackIfMoved(ctx, found, desired, budget);
  const label = `VM ${vm.vmid} on ${vm.node}`;
  const nics = nicsOf(desired);
  const current =
    knownConfig !== undefined && vm === found
      ? knownConfig
      : await ctx.api.vmPending(vm.node, vm.vmid);
  // 0. A NIC that does not exist yet gets its MAC from PVE before the seed names it.
  const known = await attachNewNics(ctx, vm, current, desired, nics, budget);
  const config = known.config;
  const previousSeed = cdromVolid(config.ide2);

  // 1. The seed: built for the NICs' real MACs, so network-config can match each by address.
  const seen = seenIn(config, nics);
  const seed = buildVmSeed({
    identity: naming.identity,
    vmName: naming.vmName,
    macs: nics.nics.map((_, i) => seen.macs[nicKey(i)]),
    nics,
    cloudInit: desired.cloudInit,
  });
  const seedVolid = await ensureSeedUploaded(
    ctx,
    {
      node: vm.node,
      vmid: vm.vmid,
      isoStorage: desired.isoStorage,
      identity: naming.identity,
      attached: previousSeed,
    },
    seed,
    budget,
  );
  const seedChanged = previousSeed !== seedVolid;
  // A shrink was refused by check; refused again here, before anything is written.
  const diskWork = planDisks(vm, config, desired);

  // 2. Config: only the keys that differ, in one task; removed NICs and detached disks go in it.
  const set = configChanges(config, desired, naming, { ...seen, seedVolid, config });
  const deleted = configDeletes(config, desired, seen);
  if (Object.keys(set).length > 0 || deleted.length > 0) {
    const keys = [
      ...keysWithInputs(Object.keys(set), desired, seen),
      ...keysWithInputs(deleted, desired, seen).map((key) => `${key} (removed)`),
    ];
    const update = { set, ...(deleted.length > 0 ? { delete: deleted } : {}) };
    // A fresh clone is stopped, so nothing hotplugs: unless the write allocates or removes
    // volumes, PUT applies it at once, with no worker task to wait for.
    const inPlace = options.justCloned === true && !doesStorageWork(set, deleted);
    await writeConfig(ctx, vm, `configuring ${keys.join(", ")}`, budget, () =>
      inPlace
        ? ctx.api.updateVmConfigSync(vm.node, vm.vmid, update).then(() => null)
        : ctx.api.updateVmConfig(vm.node, vm.vmid, update),
    );
  }

  // 3. Disks: moves to another storage, then grows.
  await runDiskWork(ctx, vm, diskWork, budget);

  // 3b. The pool, which PVE keeps outside the config and changes at once. A fresh clone joined
  // it with the clone (its `pool` parameter): no listing to read, no write to make.
  if (!options.justCloned) await ensurePool(ctx, vm, desired.pool, options.leftPool);
  const pool = desired.pool;

  // 4. Power.
  const status = options.justCloned ? undefined : await ctx.api.vmStatus(vm.node, vm.vmid);
  const running = status !== undefined && guestRunning(status.status, status.qmpstatus);
  const waiting = running
    ? [
        ...rebootWaits(known, desired, seen, Object.keys(set), seedChanged),
        ...restartingDisks(config, set, deleted),
      ]
    : [];
  const needsReboot = waiting.length > 0 && previousSeed !== undefined;
  if (desired.started && !running) {
    await powerTask(ctx, vm, "starting", () => ctx.api.startVm(vm.node, vm.vmid), budget, {
      haWaitFor: "running",
    }).catch((error: unknown) => {
      // Someone started it between our status read and our start (e.g. the provider process
      // of an interrupted run, still finishing): the goal is reached.
      if (!(isProxmoxError(error) && error.context.taskErrorCode === "ALREADY_RUNNING"))
        throw error;
    });
  } else if (!desired.started && running) {
    await powerTask(
      ctx,
      vm,
      "shutting down",
      () => ctx.api.shutdownVm(vm.node, vm.vmid, 60),
      budget,
      { haWaitFor: "stopped" },
    );
  } else if (needsReboot && desired.rebootPolicy === "allow") {
    await powerTask(
      ctx,
      vm,
      `rebooting to apply ${waiting.join(", ")}`,
      () => ctx.api.rebootVm(vm.node, vm.vmid),
      budget,
    );
  } else if (needsReboot) {
    ctx.warn(
      `${label}: ${waiting.join(", ")} wait for the next reboot (rebootPolicy is "never"); ` +
        "they stay in pendingChanges and show as drift until the VM reboots.",
    );
  }

  // 5. The old seed goes only once the new one is attached.
  if (previousSeed !== undefined && seedChanged) {
    await deleteSeedsEverywhere(
      ctx,
      { identity: naming.identity, vmid: vm.vmid, isoStorage: desired.isoStorage },
      budget,
      seedVolid,
    );
  }

  // 6. The guest agent's addresses, when asked.
  const guestInterfaces =
    desired.started && desired.waitForIp
      ? await waitForAddress(ctx, vm, seen.macs[nicKey(0)], {
          budgetMs: desired.timeouts.agentMs,
          template: String(desired.template),
        })
      : undefined;

  // 7. Complete: from now on a create that finds this VM will not resume it.
  if (readMark(config.description)?.phase !== "complete" || "description" in set) {
    const description = describe(
      desired.description,
      markFor(naming.identity, naming.placement, "complete"),
    );
    // The description alone never hotplugs or touches storage: PUT writes it at once.
    if (description !== config.description) {
      await writeConfig(ctx, vm, "marking complete", budget, () =>
        ctx.api.updateVmConfigSync(vm.node, vm.vmid, { set: { description } }).then(() => null),
      );
    }
  }
  return {
    ...vm,
    ...(pool === undefined ? {} : { pool }),
    ...(guestInterfaces === undefined ? {} : { guestInterfaces }),
  };
}

/**
 * What a running VM takes only at its next reboot: the keys just written that PVE keeps under
 * `/pending`, the program's keys already waiting there (a change an earlier `up` left pending),
 * and a changed seed, which the guest reads at boot.
 */
function rebootWaits(
  known: VmPendingConfig,
  desired: ResolvedInputs,
  seen: Seen,
  written: readonly string[],
  seedChanged: boolean,
): string[] {
  const managed = managedKeys(desired, seen);
  const keys = new Set([
    ...waitingKeys(written, desired, seen, known.current),
    ...known.pending.filter((key) => managed.includes(key)),
  ]);
  if (seedChanged) keys.add("ide2 (the cloud-init seed)");
  return [...keys];
}

/** The spec's config keys that differ, plus what the provider itself keeps on every VM. */
function configChanges(
  config: VmConfig,
  desired: ResolvedInputs,
  naming: Naming,
  seen: Seen & { seedVolid: string },
): Record<string, string | number> {
  // The spec's `agent` entry keeps the guest agent on: it reports the addresses.
  const set = specChanges(config, desired, seen);
  // The seed drive carries cloud-init.
  if (cdromVolid(config.ide2) !== seen.seedVolid) set["ide2"] = `${seen.seedVolid},media=cdrom`;
  // The description carries the VM's mark below the user's text: written whole, as one.
  const phase = readMark(config.description)?.phase ?? "creating";
  const description = describe(
    typeof desired.description === "string" ? desired.description : undefined,
    markFor(naming.identity, naming.placement, phase),
  );
  if (config.description !== description) set["description"] = description;
  return set;
}

/** Each NIC's MAC: pinned, else the one PVE holds for its key (generated when it was added). */
function seenIn(config: VmConfig, nics: VmNics): Seen {
  return {
    macs: Object.fromEntries(
      nics.nics.map((nic, i) => [
        nicKey(i),
        nic.mac ?? parseNic(config[nicKey(i)] as string | undefined)?.mac,
      ]),
    ),
  };
}

/**
 * A NIC the VM does not have yet and whose MAC is not pinned is added before the seed is built:
 * PVE generates its MAC (with the cluster's MAC prefix) on the write, and the seed needs it to
 * name the NIC. On a running VM PVE hot-plugs it (with `network` in `hotplug`, the default).
 * Returns the config as it is afterwards.
 */
async function attachNewNics(
  ctx: OperationContext,
  vm: VmLocation,
  known: VmPendingConfig,
  desired: ResolvedInputs,
  nics: VmNics,
  budgetMs: number,
): Promise<VmPendingConfig> {
  const config = known.config;
  const seen = seenIn(config, nics);
  const unnamed = new Set(
    nics.nics.flatMap((_, i) => (seen.macs[nicKey(i)] === undefined ? [nicKey(i)] : [])),
  );
  const set = Object.fromEntries(
    Object.entries(specChanges(config, desired, { ...seen, config })).filter(([key]) =>
      unnamed.has(key),
    ),
  );
  if (Object.keys(set).length === 0) return known;
  const keys = keysWithInputs(Object.keys(set), desired, seen);
  await writeConfig(ctx, vm, `adding ${keys.join(", ")}`, budgetMs, () =>
    ctx.api.updateVmConfig(vm.node, vm.vmid, { set }),
  );
  return ctx.api.vmPending(vm.node, vm.vmid);
}

/**
 * One config write and its task, reported as `doing`; a refusal names the VM, its node and the
 * keys with the inputs behind them (`net1 (networks[1])`), so the user knows what to fix.
 */
async function writeConfig(
  ctx: OperationContext,
  vm: VmLocation,
  doing: string,
  budgetMs: number,
  /** Resolves with the UPID of the task to wait for, or with null when PVE applied it. */
  write: () => Promise<string | null>,
): Promise<void> {
  const step = `VM ${vm.vmid} on ${vm.node}: ${doing}`;
  ctx.progress(step);
  try {
    const upid = await write();
    if (upid) await ctx.waitForTask(vm.node, upid, { budgetMs, step });
  } catch (error) {
    throw aboutVm(error, vm, doing);
  }
}

async function powerTask(
  ctx: OperationContext,
  vm: VmLocation,
  step: string,
  dispatch: () => Promise<string>,
  budgetMs: number,
  /** The state to wait for when PVE answers with an HA request instead of doing the work. */
  options: { readonly haWaitFor?: "running" | "stopped" } = {},
): Promise<void> {
  const label = `VM ${vm.vmid} on ${vm.node}: ${step}`;
  ctx.progress(label);
  const upid = await dispatch();
  await ctx.waitForTask(vm.node, upid, { budgetMs, step: label });
  if (options.haWaitFor !== undefined && isHaRequest(upid))
    await waitForPowerState(ctx, vm, options.haWaitFor, budgetMs);
}

/**
 * Polls the guest agent until the VM's first NIC (net0's MAC) has a routable IPv4 address, within
 * the agent budget: a docker0 bridge or an APIPA address that comes up first does not count. Only
 * the first NIC is waited for: it is the one the VM is reached by, and another NIC may sit on a
 * network without DHCP (docs/design.md, "A VM's addresses are those of its own NICs").
 */
async function waitForAddress(
  ctx: OperationContext,
  vm: VmLocation,
  mac: string | undefined,
  options: { readonly budgetMs: number; readonly template: string },
): Promise<readonly GuestInterface[]> {
  const { budgetMs } = options;
  const started = ctx.now();
  // The last moment the guest was seen without an address: its boot took longer.
  let notYetMs: number | undefined;
  const found = await pollUntil({
    clock: ctx,
    budgetMs,
    quietMs: ctx.guestBoots.quietMs(options.template),
    firstIntervalMs: AGENT_POLL_FIRST_MS,
    nextIntervalMs: proportional(AGENT_POLL_RATIO, AGENT_POLL_FIRST_MS, AGENT_POLL_MAX_MS),
    attempt: async (elapsedMs) => {
      try {
        const interfaces = await ctx.api.agentInterfaces(vm.node, vm.vmid);
        const address = ownAddresses(interfaces, mac === undefined ? [] : [mac]).v4[0];
        if (address !== undefined) return { address, interfaces, elapsedMs };
      } catch (error) {
        // Before boot the agent is not running: that is the wait, not a failure.
        if (!hasCode(error, "UNAVAILABLE") && !hasCode(error, "SERVER")) throw error;
      }
      notYetMs = elapsedMs;
      return undefined;
    },
    timedOut: () =>
      new TransientError(
        "TIMEOUT",
        `VM ${vm.vmid} on node ${vm.node}: the guest agent reported no IPv4 address on the ` +
          `VM's NIC (${mac ?? "no net0 MAC"}) within ` +
          `${Math.round(budgetMs / 1000)} s. Check that the template boots with cloud-init and that ` +
          "qemu-guest-agent starts, or set waitForIp: false.",
        vm,
      ),
    progressEveryMs: 10_000,
    progress: (waited) =>
      ctx.progress(
        `VM ${vm.vmid} on ${vm.node}: waiting for the guest agent (${Math.round(waited / 1000)} s)`,
      ),
  });
  // The boot ended between the last "not yet" and the answer, which may come a whole interval
  // late: the middle is recorded, so the next wait's quiet time does not outlast a boot.
  ctx.guestBoots.record(
    options.template,
    notYetMs === undefined ? found.elapsedMs : (notYetMs + found.elapsedMs) / 2,
  );
  const waited = Math.round((ctx.now() - started) / 1000);
  ctx.progress(
    `VM ${vm.vmid} on ${vm.node}: guest agent reports ${found.address} after ${waited} s`,
  );
  return found.interfaces;
}

/**
 * A VM that HA or a person moved goes back to its placement, unless the move is accepted. A
 * seed on a node-local ISO storage would block the migration ("can't migrate local disk"), so
 * it is ejected first; the convergence that follows attaches it again on the home node.
 */
async function moveBackIfMoved(
  ctx: OperationContext,
  vm: VmLocation,
  desired: ResolvedInputs,
  budgetMs: number,
): Promise<VmLocation> {
  if (vm.node === desired.node || desired.nodeDrift === "accept") return vm;
  const [status, config, storages] = await Promise.all([
    ctx.api.vmStatus(vm.node, vm.vmid),
    ctx.api.vmConfig(vm.node, vm.vmid),
    ctx.api.nodeStorages(vm.node),
  ]);
  const seedStorage = cdromVolid(config.ide2)?.split(":")[0];
  const shared = storages.find((s) => s.storage === seedStorage)?.shared ?? false;
  if (seedStorage !== undefined && !shared) {
    ctx.progress(`VM ${vm.vmid} on ${vm.node}: ejecting the seed before moving back`);
    const upid = await ctx.api.updateVmConfig(vm.node, vm.vmid, {
      set: { ide2: "none,media=cdrom" },
    });
    if (upid) await ctx.waitForTask(vm.node, upid, { budgetMs, step: `VM ${vm.vmid}: ejecting` });
  }
  const online = status.status === "running";
  const step = `VM ${vm.vmid}: moving back from ${vm.node} to ${desired.node}${online ? " (live)" : ""}`;
  ctx.progress(step);
  // A migration copies from this node, as the clone's migration does: one heavy task slot there.
  await ctx.withHeavyTaskSlot(vm.node, step, async () => {
    const upid = await ctx.api.migrateVm(vm.node, vm.vmid, desired.node, online);
    await ctx.waitForTask(vm.node, upid, { budgetMs, step });
  });
  return { node: desired.node, vmid: vm.vmid };
}
