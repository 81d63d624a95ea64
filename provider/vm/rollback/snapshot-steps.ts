/**
 * The PVE steps around a protected update's snapshot, each a task waited for: keep it or delete
 * it (and the oldest kept beyond `keep`), start the VM again after a rollback, and drop the
 * volumes the undone update added. Snapshots are taken, rolled back to and deleted through
 * pve/snapshot-tasks.ts.
 */
import type { VmConfig } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { isProxmoxError, vmLabel } from "../../pve/errors";
import { deleteSnapshot } from "../../pve/snapshot-tasks";
import type { VmLocation } from "../steps/vm-location";
import { KEPT, isKept, isLeftOver, isUpdateSnapshot } from "./snapshot-name";

/**
 * The snapshot of ours whose update never ended, when it is what the VM's current state descends
 * from: PVE's config names its newest snapshot in `parent` (listed by the pending read too,
 * pve-guest-common `config_with_pending_array`), and a protected update's snapshot is the newest.
 * One listing, only when `parent` is ours; undefined otherwise.
 */
export async function unfinishedUpdateOf(
  ctx: OperationContext,
  vm: VmLocation,
  config: VmConfig,
): Promise<string | undefined> {
  const parent = (config as Readonly<Record<string, unknown>>)["parent"];
  if (typeof parent !== "string" || !isUpdateSnapshot({ name: parent })) return undefined;
  const listed = await ctx.api.vmSnapshots(vm.node, vm.vmid);
  return listed.snapshots.find((s) => s.name === parent && isLeftOver(s))?.name;
}

/**
 * After a successful update: the snapshot is deleted, or with `keep` marked kept and the oldest
 * kept ones beyond `keep` deleted. A failure only warns: the update is done, and the next run
 * (or `sweep`) finds what is left.
 */
export async function finishSnapshot(
  ctx: OperationContext,
  taken: { readonly vm: VmLocation; readonly name: string },
  keep: number,
): Promise<void> {
  const { vm, name } = taken;
  try {
    if (keep === 0) {
      await deleteSnapshot(ctx, vm, name);
      return;
    }
    await ctx.api.updateSnapshot(vm.node, vm.vmid, name, KEPT);
    const kept = (await ctx.api.vmSnapshots(vm.node, vm.vmid)).snapshots
      .filter(isKept)
      .sort((a, b) => (a.snaptime ?? 0) - (b.snaptime ?? 0) || a.name.localeCompare(b.name));
    for (const old of kept.slice(0, Math.max(0, kept.length - keep)))
      await deleteSnapshot(ctx, vm, old.name);
  } catch (error) {
    const why = (error instanceof Error ? error.message : String(error)).replace(/\.+$/, "");
    ctx.warn(
      `${vmLabel(vm)}: the update succeeded, but its snapshot ${name} could not be ` +
        `${keep === 0 ? "deleted" : "kept"}: ${why}. The next \`pulumi up\` finishes it; ` +
        "`pulumi-proxmox sweep` lists it.",
    );
  }
}

/** Starts the VM a rollback stopped; one already running (a snapshot with RAM resumes it) is fine. */
export async function startAgain(
  ctx: OperationContext,
  vm: VmLocation,
  budgetMs: number,
): Promise<void> {
  const step = `${vmLabel(vm)}: starting again after the rollback`;
  ctx.progress(step);
  try {
    const upid = await ctx.api.startVm(vm.node, vm.vmid);
    await ctx.waitForTask(vm.node, upid, { budgetMs, step });
  } catch (error) {
    if (!(isProxmoxError(error) && error.context.taskErrorCode === "ALREADY_RUNNING")) throw error;
  }
}

/**
 * PVE's rollback keeps a volume the current config has and the snapshot lacks as an unused disk
 * (AbstractConfig.pm `__snapshot_apply_config` keeps every `unusedN`): a disk the undone update
 * added. Each such unused disk the VM did not have before is deleted, volume and all.
 */
export async function dropAddedVolumes(
  ctx: OperationContext,
  vm: VmLocation,
  before: VmConfig,
  budgetMs: number,
): Promise<void> {
  const had = new Set(Object.values(before).map((value) => String(value).split(",")[0]));
  const config = await ctx.api.vmConfig(vm.node, vm.vmid);
  const added = Object.keys(config).filter(
    (key) => /^unused\d+$/.test(key) && !had.has(String(config[key]).split(",")[0]),
  );
  if (added.length === 0) return;
  const step = `${vmLabel(vm)}: deleting ${added.join(", ")}, added by the update rolled back`;
  ctx.progress(step);
  const upid = await ctx.api.updateVmConfig(vm.node, vm.vmid, { set: {}, delete: added });
  if (upid) await ctx.waitForTask(vm.node, upid, { budgetMs, step });
}
