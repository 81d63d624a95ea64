/**
 * What converge does to disks besides writing their config values: a move to another storage
 * (move_disk) and a grow (resize). Planned from the config before anything is written, so a
 * shrink or a disk with nowhere to go fails before the VM is touched.
 */
import type { MoveTarget, VmConfig } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { PermanentError, vmLabel } from "../../pve/errors";
import { defaultStorage, diskAt, printDrive, storageOf, type DiskInputs } from "../spec/disks";
import { bootDisk, diskSizeGiB } from "../state/vm-facts";

interface Vm {
  readonly node: string;
  readonly vmid: number;
}

export interface DiskWork {
  readonly moves: ReadonlyArray<{ readonly disk: string; readonly target: MoveTarget }>;
  readonly grows: ReadonlyArray<{
    readonly disk: string;
    readonly fromGiB: number;
    readonly toGiB: number;
  }>;
}

/** The moves and grows the declared disks (or the boot disk's `diskSize`) need. */
export function planDisks(
  vm: Vm,
  config: VmConfig,
  wanted: {
    readonly disks?: readonly DiskInputs[] | undefined;
    readonly diskSize?: number | undefined;
  },
): DiskWork {
  const work: { moves: DiskWork["moves"][number][]; grows: DiskWork["grows"][number][] } = {
    moves: [],
    grows: [],
  };
  if (wanted.diskSize !== undefined) {
    const disk = bootDisk(config);
    const size = disk === undefined ? undefined : diskSizeGiB(String(config[disk]));
    if (disk === undefined || size === undefined)
      throw new PermanentError(
        "INVALID_PARAM",
        `${vmLabel(vm)} has no disk to resize; remove diskSize or fix the template.`,
        vm,
      );
    grow(work, vm, { disk, size, wanted: wanted.diskSize, property: "diskSize" });
  }
  (wanted.disks ?? []).forEach((disk, index) => {
    if (disk.remove === true) return;
    const drive = diskAt(config, disk.interface);
    if (drive === undefined) {
      if (disk.storage === undefined && defaultStorage(config) === undefined)
        throw new PermanentError(
          "INVALID_PARAM",
          `${vmLabel(vm)}: disk ${disk.interface} is new and has no storage, ` +
            `and the VM has no boot disk to put it beside; set disks[${index}].storage.`,
          vm,
        );
      return;
    }
    const size = diskSizeGiB(printDrive(drive));
    if (size !== undefined)
      grow(work, vm, {
        disk: disk.interface,
        size,
        wanted: disk.sizeGiB,
        property: `disks[${index}].sizeGiB`,
      });
    const moved = disk.storage !== undefined && storageOf(drive) !== disk.storage;
    if (moved)
      work.moves.push({
        disk: disk.interface,
        target: { storage: disk.storage ?? "", format: disk.format },
      });
  });
  return work;
}

function grow(
  work: { grows: DiskWork["grows"][number][] },
  vm: Vm,
  {
    disk,
    size,
    wanted,
    property,
  }: { disk: string; size: number; wanted: number; property: string },
): void {
  if (wanted < size)
    throw new PermanentError(
      "INVALID_PARAM",
      `${vmLabel(vm)}: disk ${disk} is ${size} GiB and Proxmox cannot shrink ` +
        `disks; set ${property} to ${size} or more.`,
      vm,
    );
  if (wanted > size) work.grows.push({ disk, fromGiB: size, toGiB: wanted });
}

/** Moves, then grows, each as one PVE task; a rerun plans again from what is left. */
export async function runDiskWork(
  ctx: OperationContext,
  vm: Vm,
  work: DiskWork,
  budgetMs: number,
): Promise<void> {
  for (const { disk, target } of work.moves) {
    const step = `VM ${vm.vmid} on ${vm.node}: moving ${disk} to ${target.storage}`;
    ctx.progress(step);
    const upid = await ctx.api.moveDisk(vm.node, vm.vmid, disk, target);
    await ctx.waitForTask(vm.node, upid, { budgetMs, step });
  }
  for (const { disk, fromGiB, toGiB } of work.grows) {
    ctx.progress(`VM ${vm.vmid} on ${vm.node}: growing ${disk} from ${fromGiB} to ${toGiB} GiB`);
    const upid = await ctx.api.resizeDisk(vm.node, vm.vmid, disk, `${toGiB}G`);
    if (upid)
      await ctx.waitForTask(vm.node, upid, { budgetMs, step: `${vmLabel(vm)}: resizing ${disk}` });
  }
}
