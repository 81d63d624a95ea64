/**
 * Where a VM is, from the process's last cluster listing however old: one listing answers it
 * for every VM a refresh or destroy touches. The caller reads the VM live at the node found and
 * asks again with `fresh` when it is not there (moved meanwhile). A cached listing may predate
 * the VM (a clone of this run), so only a fresh one may say it is gone.
 */
import type { ClusterVm } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";

export async function locate(
  ctx: OperationContext,
  vmid: number,
  fresh: boolean,
): Promise<ClusterVm | undefined> {
  const find = (vms: readonly ClusterVm[]) =>
    vms.find((vm) => vm.type === "qemu" && vm.vmid === vmid);
  const row = find(await ctx.listVms(fresh ? { fresh } : { anyAge: true }));
  return row ?? (fresh ? undefined : find(await ctx.listVms({ fresh: true })));
}
