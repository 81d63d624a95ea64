/**
 * Allocates a VMID from the identity's probe order and dispatches the clone, with the mark
 * already in the clone's description. A clone is never sent twice to two VMIDs for one answer
 * that was lost:
 *
 * - A clone POST whose answer was lost (reset connection, timeout, 596) may have started a
 *   clone. The VMID is inspected first: a config there carrying our mark is ours (adopted). Only
 *   then is the POST sent again, and to the *same* VMID, never the next one: PVE serialises
 *   clones to one VMID on its file lock and refuses the second with "already exists", so two
 *   requests for one VMID yield at most one VM. A refusal after a lost answer is inspected too.
 * - A clone *task* that failed on the target (another stack's clone holds its file lock, or got
 *   there first) and left nothing of ours there probes on to the next VMID.
 * - A failed or timed-out task wait is otherwise final: the next create finds the VM through its
 *   mark (find-own-vm.ts) instead of cloning again.
 */
import type { ClusterVm } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import {
  PermanentError,
  TransientError,
  hasCode,
  aboutVm,
  isTransient,
  vmLabel,
  type ProxmoxError,
} from "../../pve/errors";
import { readMark } from "../identity";

export interface TemplateRef {
  readonly node: string;
  readonly vmid: number;
}

export interface CloneNewRequest {
  readonly template: TemplateRef;
  readonly node: string;
  readonly storage?: string | undefined;
  /** A full copy of the disks; false for a linked clone on the template's base volumes. */
  readonly full: boolean;
  /** The resource pool the VM joins when the clone ends. */
  readonly pool?: string | undefined;
  readonly vmName: string;
  readonly description: string;
  readonly probe: readonly number[];
  readonly range: { readonly min: number; readonly max: number };
  readonly cloneBudgetMs: number;
}

/** Clone POSTs sent to one VMID when their answers are lost, the first included. */
const DISPATCH_ATTEMPTS = 3;
const INSPECT_POLL_MS = 1_000;

type Dispatched =
  | { readonly kind: "dispatched"; readonly vmid: number; readonly upid: string }
  | { readonly kind: "adopted"; readonly vmid: number; readonly node: string };

export async function cloneNew(
  ctx: OperationContext,
  request: CloneNewRequest,
): Promise<{ node: string; vmid: number }> {
  const identity = readMark(request.description)?.id;
  const claimant = identity ?? request.vmName;
  const takenByOthers = new Set<number>();
  for (;;) {
    // The clone task runs on the template's node and copies disks there: one heavy task slot.
    const cloned = await ctx.withHeavyTaskSlot(
      request.template.node,
      `${request.vmName}: cloning template ${request.template.vmid}`,
      () => cloneOnce(ctx, request, identity, claimant, takenByOthers),
    );
    if (cloned !== undefined) return cloned;
  }
}

/** One clone to the next free VMID: where the VM is, or undefined to try the next VMID. */
async function cloneOnce(
  ctx: OperationContext,
  request: CloneNewRequest,
  identity: string | undefined,
  claimant: string,
  takenByOthers: Set<number>,
): Promise<{ node: string; vmid: number } | undefined> {
  const outcome = await dispatchClone(ctx, request, identity, claimant, takenByOthers);
  // From here on the VM at this VMID is this resource's: no create of this process waits on
  // it, and a create of this resource after a failed wait below finds it by VMID.
  ctx.clones.started(outcome.vmid, outcome.kind === "adopted" ? outcome.node : request.node);
  if (outcome.kind === "adopted") {
    ctx.progress(`VM ${outcome.vmid} on ${outcome.node}: found this resource's clone`);
    return { node: outcome.node, vmid: outcome.vmid };
  }
  const { vmid, upid } = outcome;
  const started = ctx.now();
  try {
    await ctx.waitForTask(request.template.node, upid, {
      budgetMs: request.cloneBudgetMs,
      step: `VM ${vmid} on ${request.node}: cloning template ${request.template.vmid}`,
    });
  } catch (error) {
    if (!lostTheTarget(error)) throw onTarget(error, request, vmid);
    // PVE serialises clones to one VMID, so the winner may be our own earlier request.
    const own = await inspectTarget(ctx, request, vmid, identity);
    if (own !== undefined) return { node: own, vmid };
    ctx.progress(
      `VM ${vmid} on ${request.node}: another clone holds VMID ${vmid} (${error.code}); ` +
        "nothing of this resource is there, trying the next VMID",
    );
    ctx.clones.release(vmid);
    takenByOthers.add(vmid);
    return undefined;
  }
  ctx.progress(
    `VM ${vmid} on ${request.node}: cloned from template ${request.template.vmid} in ${elapsed(ctx, started)}`,
  );
  return { node: request.node, vmid };
}

/** A clone task that failed on its target's file lock or found the target already there. */
function lostTheTarget(error: unknown): error is ProxmoxError {
  if (!hasCode(error, "TASK_FAILED")) return false;
  const family = error.context.taskErrorCode;
  return family === "LOCK_TIMEOUT" || family === "ALREADY_EXISTS";
}

/**
 * Claims the first VMID of the probe order that the shared listing and this process's clones
 * leave free, and sends the clone there; probes on when PVE refuses it. No lock is held across
 * the listing and the POST: claims keep this process's creates apart, and PVE refuses a clone
 * to a VMID that exists or whose file lock another clone holds, which keeps other processes
 * apart — a listing that lags behind only costs a refused POST.
 */
async function dispatchClone(
  ctx: OperationContext,
  request: CloneNewRequest,
  identity: string | undefined,
  claimant: string,
  takenByOthers: Set<number>,
): Promise<Dispatched> {
  const taken = new Set((await ctx.listVms()).map((vm: ClusterVm) => vm.vmid));
  for (const vmid of request.probe) {
    if (taken.has(vmid) || takenByOthers.has(vmid)) continue;
    if (!ctx.clones.claim(vmid, claimant)) continue;
    let outcome: Dispatched | "taken";
    try {
      outcome = await dispatchAt(ctx, request, vmid, identity);
    } catch (error) {
      ctx.clones.release(vmid);
      throw error;
    }
    if (outcome !== "taken") return outcome;
    ctx.clones.release(vmid);
    takenByOthers.add(vmid);
  }
  if (request.probe.length === 1) {
    throw new PermanentError(
      "ALREADY_EXISTS",
      `VMID ${request.probe[0]} is taken on the cluster; choose another vmid or remove the pin.`,
      { vmid: request.probe[0] },
    );
  }
  throw new TransientError(
    "RANGE_EXHAUSTED",
    `No free VMID among the ${request.probe.length} probed in ${request.range.min}–${request.range.max}; ` +
      "widen vmidRange or free VMIDs in it.",
  );
}

/** Sends the clone POST for `vmid`; "taken" when someone else holds that VMID. */
async function dispatchAt(
  ctx: OperationContext,
  request: CloneNewRequest,
  vmid: number,
  identity: string | undefined,
): Promise<Dispatched | "taken"> {
  let answerLost = false;
  for (let attempt = 1; ; attempt++) {
    try {
      ctx.progress(
        `VM ${vmid} on ${request.node}: ${request.full ? "cloning" : "linked-cloning"} template ${request.template.vmid}`,
      );
      const upid = await ctx.api.cloneVm({
        node: request.template.node,
        vmid: request.template.vmid,
        newid: vmid,
        name: request.vmName,
        description: request.description,
        target: request.node === request.template.node ? undefined : request.node,
        storage: request.storage,
        full: request.full,
        pool: request.pool,
      });
      return { kind: "dispatched", vmid, upid };
    } catch (error) {
      // Someone took the VMID behind the listing's back, or holds its file lock: probe on,
      // unless it is our own request whose answer was lost.
      if (hasCode(error, "ALREADY_EXISTS") || hasCode(error, "LOCK_TIMEOUT")) {
        if (!answerLost) return "taken";
        const own = await inspectTarget(ctx, request, vmid, identity);
        return own === undefined ? "taken" : { kind: "adopted", vmid, node: own };
      }
      if (!isTransient(error) || attempt >= DISPATCH_ATTEMPTS) throw onTarget(error, request, vmid);
      answerLost = true;
      const own = await inspectTarget(ctx, request, vmid, identity);
      if (own !== undefined) return { kind: "adopted", vmid, node: own };
      ctx.progress(
        `VM ${vmid} on ${request.node}: the clone request got no answer (${error.code}) and ` +
          `no VM of this resource is at VMID ${vmid}; sending it again to the same VMID ` +
          `(attempt ${attempt + 1} of ${DISPATCH_ATTEMPTS})`,
      );
    }
  }
}

/**
 * The node of the VM at `vmid` when it is this resource's (its settled config carries our
 * mark); undefined when there is none or it is someone else's. A clone in progress there is
 * waited out within the clone budget: only its final config carries the description.
 */
async function inspectTarget(
  ctx: OperationContext,
  request: CloneNewRequest,
  vmid: number,
  identity: string | undefined,
): Promise<string | undefined> {
  const deadline = ctx.now() + request.cloneBudgetMs;
  let vanished = 0;
  for (;;) {
    const row = (await ctx.listVms({ fresh: true })).find((vm) => vm.vmid === vmid);
    if (row === undefined) return undefined;
    let lock: string | undefined;
    try {
      const config = await ctx.api.vmConfig(row.node, vmid);
      lock = config.lock;
      if (lock !== "clone") {
        const mark = readMark(config.description);
        return identity !== undefined && mark?.id === identity ? row.node : undefined;
      }
    } catch (error) {
      // Listed but gone: a failed clone removed it, or it moved to its target node.
      if (!hasCode(error, "NOT_FOUND")) throw error;
      if (++vanished >= 3) return undefined;
    }
    if (ctx.now() >= deadline) {
      throw new TransientError(
        "LOCKED",
        `${vmLabel({ vmid, node: row.node })} is still being cloned after ` +
          `${Math.round(request.cloneBudgetMs / 1000)} s; it may be this resource's own clone. ` +
          "Run the update again once the clone task ends.",
        { node: row.node, vmid, lock: "clone" },
      );
    }
    if (lock === "clone") {
      ctx.progress(`VM ${vmid} on ${row.node}: waiting for a clone in progress to finish`);
    }
    await ctx.sleep(INSPECT_POLL_MS);
  }
}

/** The error, named after the target VM and node rather than the template the UPID names. */
function onTarget(error: unknown, request: CloneNewRequest, vmid: number): unknown {
  return aboutVm(
    error,
    { node: request.node, vmid },
    `cloning template ${request.template.vmid} (node ${request.template.node})`,
  );
}

function elapsed(ctx: OperationContext, since: number): string {
  return `${((ctx.now() - since) / 1000).toFixed(1)} s`;
}
