/** The first step of `converge`: a VM found on another node than its placement goes back. */
import type { OperationContext } from "../../pve/context";
import { vmLabel } from "../../pve/errors";
import { cdromVolid } from "../state/vm-facts";
import type { ResolvedInputs } from "./resolved-inputs";
import type { VmLocation } from "./vm-location";

/**
 * A VM that HA or a person moved goes back to its placement, unless the move is accepted. A
 * seed on a node-local ISO storage would block the migration ("can't migrate local disk"), so
 * it is ejected first; the convergence that follows attaches it again on the home node.
 */
export async function moveBackIfMoved(
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
    if (upid) await ctx.waitForTask(vm.node, upid, { budgetMs, step: `${vmLabel(vm)}: ejecting` });
  }
  const online = status.status === "running";
  const step = `${vmLabel(vm)}: moving back from ${vm.node} to ${desired.node}${online ? " (live)" : ""}`;
  ctx.progress(step);
  // A migration copies from this node, as the clone's migration does: one heavy task slot there.
  await ctx.withHeavyTaskSlot(vm.node, step, async () => {
    const upid = await ctx.api.migrateVm(vm.node, vm.vmid, desired.node, online);
    await ctx.waitForTask(vm.node, upid, { budgetMs, step });
  });
  return { node: desired.node, vmid: vm.vmid };
}
