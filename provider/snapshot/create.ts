/**
 * create: the snapshot is taken and read back. A snapshot of the same name and description
 * already there is this resource's own, from a create interrupted after PVE took it: it is kept,
 * not taken twice; one still being taken is waited for. Any other snapshot of that name is
 * refused, naming it.
 */
import type { VmSnapshot } from "../pve/api/proxmox-api";
import type { OperationContext } from "../pve/context";
import { PermanentError, hasCode, vmLabel } from "../pve/errors";
import { SNAPSHOT_TASK_BUDGET_MS, takeSnapshot, type SnapshotVm } from "../pve/snapshot-tasks";
import { snapshotNameOf, type SnapshotInputs } from "./inputs";
import { findVm } from "./locate";
import { readSnapshot } from "./read";
import type { SnapshotState } from "./state";

export async function createVmSnapshot(
  ctx: OperationContext,
  inputs: SnapshotInputs,
): Promise<SnapshotState> {
  const snapshotName = snapshotNameOf(inputs);
  const found = await findVm(ctx, { node: inputs.node, vmid: inputs.vmid });
  if (found === undefined)
    throw new PermanentError(
      "NOT_FOUND",
      `${vmLabel(inputs)} does not exist, so snapshot ${snapshotName} cannot be taken: check ` +
        "the VmSnapshot's `vm`.",
      { vmid: inputs.vmid, node: inputs.node },
    );
  const { vm } = found;
  await ctx.withLock(`vm:${vm.vmid}`, async () => {
    const existing = await settled(ctx, vm, snapshotName, found.snapshots.snapshots);
    if (existing === undefined) await take(ctx, vm, snapshotName, inputs);
    else if (existing.description !== inputs.description)
      throw new PermanentError(
        "ALREADY_EXISTS",
        `${vmLabel(vm)} already has a snapshot named ${snapshotName} that this resource did not ` +
          `take (its description differs). Set the VmSnapshot's \`name\` to another, or delete ` +
          `that snapshot (\`qm delsnapshot ${vm.vmid} ${snapshotName}\`) and run \`up\` again.`,
        { vmid: vm.vmid, node: vm.node },
      );
  });
  const state: SnapshotState = {
    ...inputs,
    node: vm.node,
    snapshotName,
    snaptime: 0,
    vmstate: false,
  };
  const read = await readSnapshot(ctx, state);
  if (read === undefined)
    throw new PermanentError(
      "NOT_FOUND",
      `${vmLabel(vm)}: snapshot ${snapshotName} was taken but is gone already (deleted by ` +
        "someone else meanwhile); run `up` again to take it again.",
      { vmid: vm.vmid, node: vm.node },
    );
  // A rollback before this resource existed is not one it should report.
  return { ...read, rolledBackAt: undefined };
}

/** The snapshot of that name once no task is taking it (PVE's `snapstate: prepare`). */
async function settled(
  ctx: OperationContext,
  vm: SnapshotVm,
  name: string,
  listed: readonly VmSnapshot[],
): Promise<VmSnapshot | undefined> {
  const deadline = ctx.now() + SNAPSHOT_TASK_BUDGET_MS;
  let snapshot = listed.find((s) => s.name === name);
  while (snapshot?.snapstate !== undefined && ctx.now() < deadline) {
    ctx.progress(`${vmLabel(vm)}: waiting for the task taking snapshot ${name}`);
    await ctx.sleep(2_000);
    snapshot = (await ctx.api.vmSnapshots(vm.node, vm.vmid)).snapshots.find((s) => s.name === name);
  }
  return snapshot;
}

async function take(
  ctx: OperationContext,
  vm: SnapshotVm,
  name: string,
  inputs: SnapshotInputs,
): Promise<void> {
  const request = {
    name,
    description: inputs.description === "" ? undefined : inputs.description,
    vmstate: inputs.includeRam ? true : undefined,
  };
  try {
    await takeSnapshot(ctx, vm, request);
  } catch (error) {
    if (!hasCode(error, "TASK_FAILED") || error.context.taskErrorCode !== "UNSUPPORTED")
      throw error;
    throw new PermanentError(
      "UNSUPPORTED",
      `${vmLabel(vm)}: PVE cannot snapshot one of its disks (${error.context.pveMessage ?? ""}): ` +
        "a disk on thick LVM or iSCSI, or a raw file on a dir, NFS or CIFS storage. Move the disk " +
        "to LVM-thin, ZFS or Ceph, or to a qcow2 file (`disks[].storage`), then run `up` again.",
      { vmid: vm.vmid, node: vm.node, upid: error.context.upid },
      { cause: error },
    );
  }
}
