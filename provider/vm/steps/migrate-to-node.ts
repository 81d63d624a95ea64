/**
 * The second half of a clone from a template on another node's local storage: PVE clones such
 * disks only on the template's node, so the stopped clone is migrated offline, its local disks
 * copied, to the node the VM belongs on. Create runs it right after the clone and again when it
 * resumes a create that stopped in between (the VM's mark names the node it belongs on).
 */
import type { OperationContext } from "../../pve/context";
import { hasCode, vmLabel } from "../../pve/errors";
import type { VmLocation } from "./vm-location";

export async function migrateToNode(
  ctx: OperationContext,
  vm: VmLocation,
  target: { readonly node: string; readonly storage?: string | undefined },
  budgetMs: number,
): Promise<VmLocation> {
  const step = `${vmLabel(vm)}: migrating offline from ${vm.node} to ${target.node} with its local disks`;
  ctx.progress(
    `VM ${vm.vmid} on ${vm.node}: the template's disks are on node-local storage, so the clone ` +
      `was made on its node; ${step.slice(step.indexOf(":") + 2)}` +
      (target.storage === undefined ? "" : ` onto ${target.storage}`),
  );
  const started = ctx.now();
  // The migration copies the disks from this node: one heavy task slot there.
  const migrated = await ctx.withHeavyTaskSlot(vm.node, step, async () => {
    let upid: string;
    try {
      upid = await ctx.api.migrateVm(vm.node, vm.vmid, target.node, false, {
        withLocalDisks: true,
        targetStorage: target.storage,
      });
    } catch (error) {
      // A migration whose answer was lost moved the VM; the listing that sent us here was older.
      if (hasCode(error, "NOT_FOUND") && (await isOn(ctx, target.node, vm.vmid))) return false;
      throw error;
    }
    await ctx.waitForTask(vm.node, upid, { budgetMs, step });
    return true;
  });
  if (!migrated) {
    ctx.progress(`VM ${vm.vmid} on ${target.node}: already migrated from ${vm.node}`);
    return { node: target.node, vmid: vm.vmid };
  }
  const seconds = Math.round((ctx.now() - started) / 1000);
  ctx.progress(`VM ${vm.vmid} on ${target.node}: migrated from ${vm.node} in ${seconds} s`);
  return { node: target.node, vmid: vm.vmid };
}

async function isOn(ctx: OperationContext, node: string, vmid: number): Promise<boolean> {
  return ctx.api.vmConfig(node, vmid).then(
    () => true,
    (error: unknown) => {
      if (hasCode(error, "NOT_FOUND")) return false;
      throw error;
    },
  );
}
