/**
 * create: find our own VM or clone a new one, then converge it and read it back.
 *
 * Resumable at every step: the mark (identity + phase) is written in the clone call, so a create
 * retried after a crash finds the VM it started and carries on instead of cloning again. A VM
 * that is already *complete* under our identity is not ours to take silently (lost state, or
 * `--replace` with unchanged inputs): that needs `adopt: true` and a matching placement.
 */
import type { OperationContext } from "../../pve/context";
import { PermanentError, vmLabel } from "../../pve/errors";
import { describe, markFor, markMatches, probeOrder } from "../identity";
import { unobservedVmState, type VmState } from "../state/vm-state";
import { VmInitError } from "../init-error";
import { cloneNew } from "../steps/clone";
import { converge } from "../steps/converge";
import type { VmLocation } from "../steps/vm-location";
import { findOwnVm } from "../steps/find-own-vm";
import { migrateToNode } from "../steps/migrate-to-node";
import { observe } from "../steps/observe";
import { namingOf, type ResolvedInputs } from "../steps/resolved-inputs";
import { preflight } from "../steps/preflight";
import { resumableIdentities } from "../steps/resume-list";

/** How many VMIDs from the identity's slot a create may probe, and so must inspect for its own clone. */
export const PROBE_WINDOW = 32;

export async function createVm(
  ctx: OperationContext,
  inputs: ResolvedInputs,
  stateExtras: Record<string, unknown> = {},
): Promise<VmState> {
  const naming = namingOf(inputs);
  const probe =
    typeof inputs.vmid === "number"
      ? [inputs.vmid]
      : probeOrder(naming.identity, inputs.vmidRange, PROBE_WINDOW);

  const own = await findOwnVm(ctx, {
    identity: naming.identity,
    vmName: naming.vmName,
    probe,
    cloneBudgetMs: inputs.timeouts.cloneMs,
  });

  let vm: VmLocation;
  let justCloned = false;
  // A complete VM is resumed only when `pulumi-proxmox up` vouches that an interrupted run of
  // this stack made it; otherwise taking it over needs `adopt` (lost state, or `--replace`).
  if (own && own.mark.phase === "complete" && !resumableIdentities().has(naming.identity)) {
    if (!inputs.adopt) {
      throw new PermanentError(
        "CONFLICT",
        `VM ${own.vmid} (${naming.vmName}) on node ${own.node} already carries this resource's identity ` +
          "and is complete, but this stack does not know it (lost state, or --replace with unchanged " +
          "inputs). If a `pulumi up` of this stack was interrupted, `pulumi-proxmox up` resumes it " +
          "without a program change; otherwise set `adopt: true` on the resource to take it over, " +
          "or delete that VM.",
        { node: own.node, vmid: own.vmid },
      );
    }
    if (!markMatches(own.mark, naming.placement)) {
      throw new PermanentError(
        "CONFLICT",
        `${vmLabel(own)} was created for another placement ` +
          `(node ${own.mark.node}, template ${own.mark.template}); it is not adopted.`,
        { node: own.node, vmid: own.vmid },
      );
    }
    ctx.progress(`VM ${own.vmid} on ${own.node}: adopting (adopt: true)`);
    vm = { node: own.node, vmid: own.vmid };
  } else if (own) {
    ctx.progress(`VM ${own.vmid} on ${own.node}: resuming an interrupted create`);
    vm = { node: own.node, vmid: own.vmid };
  } else {
    // What only the API can check (node, storages, template) fails here, before anything exists.
    const plan = await preflight(ctx, inputs);
    const viaTemplateNode = plan.migrateTo !== undefined;
    vm = await cloneNew(ctx, {
      template: plan.template,
      node: viaTemplateNode ? plan.template.node : inputs.node,
      // Cloned on the template's node, the disks stay on its storages until the migration.
      storage: viaTemplateNode ? undefined : inputs.storage,
      full: inputs.clone.full,
      pool: inputs.pool,
      vmName: naming.vmName,
      description: describe(
        typeof inputs.description === "string" ? inputs.description : undefined,
        markFor(naming.identity, naming.placement, "creating"),
      ),
      probe,
      range: inputs.vmidRange,
      cloneBudgetMs: inputs.timeouts.cloneMs,
    });
    justCloned = true;
  }

  // A clone made on its template's node (node-local disks) moves to its own node before anything
  // else; a resumed create whose clone was made there moves it now.
  if (own?.mark.phase !== "complete" && vm.node !== inputs.node) {
    vm = await migrateToNode(ctx, vm, inputs, inputs.timeouts.cloneMs);
  }

  try {
    const done = await converge(ctx, vm, inputs, naming, { justCloned });
    vm = done;
    return await observe(ctx, done, inputs, naming);
  } catch (error) {
    // The VM exists: hand it to Pulumi as a partial create, so nothing leaks and the next
    // `up` finishes it (the engine forces an update of a resource with init errors).
    throw new VmInitError(
      vm.vmid,
      unobservedVmState(
        { ...stateExtras, ...inputs },
        { vmid: vm.vmid, node: vm.node, identityHash: naming.identity, vmName: naming.vmName },
      ),
      error,
    );
  }
}
