/**
 * The VM's resource pool. PVE keeps membership in user.cfg, not in the VM's config, so it is read
 * from the cluster listing and changed through the pool API, at once, whether the VM runs or not.
 * A VM is in at most one pool: a move leaves the old pool first, then joins the new one
 * (docs/design.md, "Pool membership").
 */
import type { ListingAge, OperationContext } from "../../pve/context";
import { PermanentError, aboutVm, hasCode, missingPool, vmLabel } from "../../pve/errors";
import type { VmLocation } from "./vm-location";

/**
 * Puts the VM in `want`, or takes it out of `left` (the pool the program named before). When the
 * program names neither, nothing is read: a pool someone else put the VM in is theirs.
 */
export async function ensurePool(
  ctx: OperationContext,
  vm: VmLocation,
  want: string | undefined,
  left: string | undefined,
): Promise<void> {
  if (want === undefined && left === undefined) return;
  // PVE reads the pool from user.cfg on every listing: a fresh one is exact.
  const current = await poolOf(ctx, vm.vmid, { fresh: true });
  if (current === want) return;
  try {
    if (current !== undefined && (want !== undefined || current === left))
      await change(ctx, vm, current, "remove");
    if (want !== undefined) await change(ctx, vm, want, "add");
  } finally {
    // The listing this process keeps no longer says where the VM is.
    ctx.api.invalidateClusterVms?.();
  }
}

/**
 * The pool the cluster listing shows the VM in. Unlike the VM's node, nothing checks it live
 * afterwards, so a listing of any age is not asked for: by default one of the last seconds.
 */
export async function poolOf(
  ctx: OperationContext,
  vmid: number,
  age?: ListingAge,
): Promise<string | undefined> {
  const rows = await ctx.listVms(age);
  return rows.find((row) => row.type === "qemu" && row.vmid === vmid)?.pool;
}

async function change(
  ctx: OperationContext,
  vm: VmLocation,
  poolid: string,
  action: "add" | "remove",
): Promise<void> {
  const doing = action === "add" ? `joining pool ${poolid}` : `leaving pool ${poolid}`;
  ctx.progress(`VM ${vm.vmid} on ${vm.node}: ${doing}`);
  try {
    await ctx.api.updatePoolMembership({ poolid, vmid: vm.vmid, remove: action === "remove" });
  } catch (error) {
    if (action === "add" && hasCode(error, "NOT_FOUND")) {
      throw new PermanentError(
        "NOT_FOUND",
        `${vmLabel(vm)}: ${doing} failed: ${missingPool(poolid)}`,
        { node: vm.node, vmid: vm.vmid },
        { cause: error },
      );
    }
    throw aboutVm(error, vm, doing);
  }
}
