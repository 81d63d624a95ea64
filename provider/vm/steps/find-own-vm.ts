/**
 * Finds the VM that carries this resource's identity, before anything is cloned.
 *
 * - A VM listed under our deterministic name anywhere in the cluster is inspected.
 * - A *nameless* entry inside our probe window is inspected too: PVE writes the name only when
 *   a clone ends, so that is what our own interrupted clone looks like. Its
 *   lock is waited out within the clone budget, then its mark decides.
 * - An entry with someone else's name is never read, never waited on; nor is a clone another
 *   resource of this provider process started (the process knows it is not ours).
 * - A clone this process started for this resource is inspected whether listed yet or not.
 *
 * The whole window is inspected, not just the VMIDs before the first free one, so a crash
 * mid-clone cannot yield a second VM because an earlier VMID was freed meanwhile
 * (docs/design.md, "Finding our own VM").
 */
import type { ClusterVm, VmConfig } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { TransientError, hasCode, vmLabel } from "../../pve/errors";
import { readMark, type Mark } from "../identity";
import { pollUntil } from "../../pve/poll";
import type { VmLocation } from "./vm-location";

export interface OwnVm {
  readonly node: string;
  readonly vmid: number;
  readonly mark: Mark;
}

export interface FindOwnVmRequest {
  readonly identity: string;
  readonly vmName: string;
  readonly probe: readonly number[];
  readonly cloneBudgetMs: number;
}

const LOCK_POLL_MS = 1_000;
const PROGRESS_EVERY_MS = 10_000;

export async function findOwnVm(
  ctx: OperationContext,
  request: FindOwnVmRequest,
): Promise<OwnVm | undefined> {
  const window = new Set(request.probe);
  // The shared listing (at most a couple of seconds old) is enough for a VM cloned by an
  // earlier run: the set of VMs, their names and locks never lag in it. A clone this process
  // started is known without it, listed yet or not.
  const listed = await ctx.listVms();
  const startedHere = ctx.clones.startedClones(request.identity);
  const candidates: VmLocation[] = [
    ...startedHere,
    ...listed
      .filter((vm) => vm.type === "qemu" && !startedHere.some((own) => own.vmid === vm.vmid))
      .filter((vm) => vm.name === request.vmName || mayBeOurInterruptedClone(vm, window, ctx))
      .sort((a, b) => Number(b.name === request.vmName) - Number(a.name === request.vmName)),
  ];

  for (const vm of candidates) {
    const config = await settledConfig(ctx, vm, request.cloneBudgetMs);
    if (config === undefined) continue;
    const mark = readMark(config.description);
    if (mark?.id === request.identity) {
      return { node: vm.node, vmid: vm.vmid, mark };
    }
  }
  return undefined;
}

/**
 * A nameless VM in the probe window that may be this resource's interrupted clone: any but
 * the clones another resource of this process started, which are provably not ours.
 */
function mayBeOurInterruptedClone(
  vm: ClusterVm,
  window: ReadonlySet<number>,
  ctx: OperationContext,
): boolean {
  return isNameless(vm) && window.has(vm.vmid) && ctx.clones.startedFor(vm.vmid) === undefined;
}

/**
 * Whether a listing row says nothing about whose VM it is: no name yet, PVE's placeholder
 * `VM <vmid>` (what pvestatd reports for a config without a name, e.g. a clone in progress),
 * or a clone lock (read straight from the config, so it never lags).
 */
export function isNameless(vm: ClusterVm): boolean {
  return !vm.name || vm.name === `VM ${vm.vmid}` || vm.lock === "clone";
}

/** The config once no clone holds it; undefined when the VM vanished (a failed clone). */
async function settledConfig(
  ctx: OperationContext,
  vm: VmLocation,
  budgetMs: number,
): Promise<VmConfig | undefined> {
  const settled = await pollUntil<{ config: VmConfig | undefined }>({
    clock: ctx,
    budgetMs,
    firstIntervalMs: LOCK_POLL_MS,
    nextIntervalMs: () => LOCK_POLL_MS,
    attempt: async () => {
      try {
        const config = await ctx.api.vmConfig(vm.node, vm.vmid);
        return config.lock === "clone" ? undefined : { config };
      } catch (error) {
        if (hasCode(error, "NOT_FOUND")) return { config: undefined };
        throw error;
      }
    },
    timedOut: () =>
      new TransientError(
        "LOCKED",
        `${vmLabel(vm)} is still being cloned after ${Math.round(budgetMs / 1000)} s; ` +
          "it may be this resource's own interrupted clone. Run the update again once the clone task ends.",
        { node: vm.node, vmid: vm.vmid, lock: "clone" },
      ),
    // A line per poll would flood the output: one at the start, then one every 10 s.
    progressEveryMs: PROGRESS_EVERY_MS,
    progress: (waited) =>
      ctx.progress(
        `VM ${vm.vmid} on ${vm.node}: waiting for a clone in progress to finish ` +
          `(${Math.round(waited / 1000)} s)`,
      ),
  });
  return settled.config;
}
