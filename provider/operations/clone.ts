/**
 * Allocates a VMID from the identity's probe order and dispatches the clone, with the mark
 * already in the clone's description. Never dispatches twice: a failed wait is reported, and the
 * next create finds the VM through its mark (find-own-vm.ts) instead of cloning again.
 */
import type { ClusterVm } from "../api/proxmox-api";
import type { OperationContext } from "../context";
import { PermanentError, TransientError, hasCode } from "../errors";

export interface TemplateRef {
  readonly node: string;
  readonly vmid: number;
}

export interface CloneNewRequest {
  readonly template: TemplateRef;
  readonly node: string;
  readonly storage?: string | undefined;
  readonly vmName: string;
  readonly description: string;
  readonly probe: readonly number[];
  readonly range: { readonly min: number; readonly max: number };
  readonly cloneBudgetMs: number;
}

export async function cloneNew(
  ctx: OperationContext,
  request: CloneNewRequest,
): Promise<{ node: string; vmid: number }> {
  const { vmid, upid } = await ctx.withLock("vmid", () => dispatchClone(ctx, request));
  const started = ctx.now();
  await ctx.waitForTask(request.template.node, upid, {
    budgetMs: request.cloneBudgetMs,
    step: `VM ${vmid} on ${request.node}: cloning template ${request.template.vmid}`,
  });
  ctx.progress(
    `VM ${vmid} on ${request.node}: cloned from template ${request.template.vmid} in ${elapsed(ctx, started)}`,
  );
  return { node: request.node, vmid };
}

async function dispatchClone(ctx: OperationContext, request: CloneNewRequest) {
  const taken = new Set((await ctx.listVms({ fresh: true })).map((vm: ClusterVm) => vm.vmid));
  for (const vmid of request.probe) {
    if (taken.has(vmid)) continue;
    try {
      ctx.progress(`VM ${vmid} on ${request.node}: cloning template ${request.template.vmid}`);
      const upid = await ctx.api.cloneVm({
        node: request.template.node,
        vmid: request.template.vmid,
        newid: vmid,
        name: request.vmName,
        description: request.description,
        target: request.node === request.template.node ? undefined : request.node,
        storage: request.storage,
        full: true,
      });
      return { vmid, upid };
    } catch (error) {
      // Someone took the VMID behind the listing's back, or holds its file lock: probe on.
      if (hasCode(error, "ALREADY_EXISTS") || hasCode(error, "LOCK_TIMEOUT")) continue;
      throw error;
    }
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

function elapsed(ctx: OperationContext, since: number): string {
  return `${((ctx.now() - since) / 1000).toFixed(1)} s`;
}
