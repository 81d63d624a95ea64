/**
 * What `rollbackOnFailure` cannot protect, refused before anything is written (at preview, and
 * again by the update before its snapshot): a snapshot PVE would refuse, or one that would make
 * the update itself fail. Each rule is PVE's own:
 *
 * - pve-storage's `volume_has_feature($feature = 'snapshot')`, per plugin, for a volume that is
 *   not a base image (`current`): LvmThinPlugin, ZFSPoolPlugin, ZFSPlugin, RBDPlugin and
 *   BTRFSPlugin snapshot every volume; Plugin.pm (dir, nfs, cifs, glusterfs, cephfs) only qcow2;
 *   LVMPlugin none, but a qcow2 volume (9.x's `snapshot-as-volume-chain`, the only way LVM holds
 *   qcow2); ISCSIPlugin and ISCSIDirectPlugin none. qemu-server's AbstractConfig
 *   `__snapshot_prepare` then dies "snapshot feature is not available" for the whole VM.
 * - qemu-server's PVE/API2/Qemu.pm `move_vm_disk`: "you can't move a disk with snapshots and
 *   delete the source" (converge moves with `delete`).
 * - qemu-server's PVE/API2/Qemu.pm `resize_vm`: "can't resize volume: <disk> if snapshot exists"
 *   for a qcow2 volume.
 *
 * A storage type PVE's own plugins do not have (a third-party plugin) is left to PVE to answer.
 */
import type { CheckFailure } from "../../inputs/check-failure";
import type { NodeStorage, VmConfig } from "../../pve/api/proxmox-api";
import { vmLabel } from "../../pve/errors";
import { diskAt, storageOf, type DiskInputs } from "../spec/disks";
import { isDrive } from "../state/vm-facts";
import type { DiskWork } from "../steps/disk-step";
import type { VmLocation } from "../steps/vm-location";

/** Storage types whose plugin snapshots every volume. */
const ANY_FORMAT = new Set(["lvmthin", "zfspool", "zfs", "rbd", "btrfs"]);
/** Storage types whose plugin snapshots qcow2 volumes only. */
const QCOW2_ONLY = new Set(["dir", "nfs", "cifs", "glusterfs", "cephfs", "lvm"]);
/** Storage types whose plugin snapshots nothing. */
const NONE = new Set(["iscsi", "iscsidirect"]);

/**
 * Whether PVE snapshots a volume of `format` on a storage of `type`; undefined for a type PVE's
 * own plugins do not have.
 */
export function snapshotsOn(type: string, format: string): boolean | undefined {
  if (ANY_FORMAT.has(type)) return true;
  if (QCOW2_ONLY.has(type)) return format === "qcow2";
  if (NONE.has(type)) return false;
  return undefined;
}

/** `local:100/vm-100-disk-0.qcow2` → qcow2; a volume without a file suffix is raw. */
export function volumeFormat(volume: string): string {
  return /\.(raw|qcow2|vmdk)$/.exec(volume)?.[1] ?? "raw";
}

export interface RefusalFacts {
  readonly vm: VmLocation;
  /** The VM's config, read before anything is written. */
  readonly config: VmConfig;
  /** The storages of the VM's node, with their types. */
  readonly storages: readonly NodeStorage[];
  readonly desired: {
    readonly disks?: readonly DiskInputs[] | undefined;
    readonly diskSize?: number | undefined;
  };
  /** The moves and grows the update makes (disk-step.ts `planDisks`). */
  readonly work: DiskWork;
}

/** Each refusal, naming the input to change, the disk and its storage; empty when none. */
export function snapshotRefusals(facts: RefusalFacts): CheckFailure[] {
  return [...unsnapshottable(facts), ...newUnsnapshottable(facts), ...refusedWork(facts)];
}

const SNAPSHOTTING = "lvmthin, zfspool, rbd, or a qcow2 volume on a directory storage";

const FIX = `Put it on a storage PVE snapshots (${SNAPSHOTTING}), or remove rollbackOnFailure; nothing was written.`;

/** A disk the VM has already: moving it is itself refused under rollbackOnFailure. */
const MOVE_FIX =
  `Move it to a storage PVE snapshots (${SNAPSHOTTING}) in an \`up\` with rollbackOnFailure ` +
  "off (a move is refused while it is on), then turn it back on; or remove rollbackOnFailure; " +
  "nothing was written.";

/** The VM's disks (not CD-ROMs) on a storage that cannot snapshot them. */
function unsnapshottable({ vm, config, storages }: RefusalFacts): CheckFailure[] {
  return Object.keys(config)
    .filter(isDrive)
    .sort()
    .flatMap((key) => {
      const drive = diskAt(config, key);
      if (drive === undefined || !drive.volume.includes(":")) return [];
      const storage = storageOf(drive);
      const type = storages.find((s) => s.storage === storage)?.type;
      const format = volumeFormat(drive.volume);
      if (type === undefined || snapshotsOn(type, format) !== false) return [];
      return [
        {
          property: "rollbackOnFailure",
          reason:
            `disk ${key} of ${vmLabel(vm)} is a ${format} volume on storage ${storage} (${type}), ` +
            `which PVE cannot snapshot, so the update could not be rolled back. ${MOVE_FIX}`,
        },
      ];
    });
}

/** A disk the update adds on a storage that cannot snapshot it: the next update could not. */
function newUnsnapshottable({ config, storages, desired }: RefusalFacts): CheckFailure[] {
  return (desired.disks ?? []).flatMap((disk, index) => {
    if (disk.remove === true || disk.storage === undefined) return [];
    if (diskAt(config, disk.interface) !== undefined) return [];
    const type = storages.find((s) => s.storage === disk.storage)?.type;
    const format = disk.format ?? "raw";
    if (type === undefined || snapshotsOn(type, format) !== false) return [];
    return [
      {
        property: `disks[${index}].storage`,
        reason:
          `the new disk ${disk.interface} would be a ${format} volume on storage ${disk.storage} ` +
          `(${type}), which PVE cannot snapshot, and rollbackOnFailure snapshots the VM before ` +
          `each disruptive update. ${FIX}`,
      },
    ];
  });
}

/** A move, or a qcow2 grow, that PVE refuses while the VM has the snapshot taken before it. */
function refusedWork({ vm, config, desired, work }: RefusalFacts): CheckFailure[] {
  const property = (disk: string, field: "storage" | "sizeGiB") => {
    const index = (desired.disks ?? []).findIndex((d) => d.interface === disk);
    return index >= 0 ? `disks[${index}].${field}` : "diskSize";
  };
  const volumeAt = (disk: string) => diskAt(config, disk)?.volume ?? "";
  const then =
    "; rollbackOnFailure snapshots the VM first. Make this change with rollbackOnFailure off, " +
    "then turn it back on; nothing was written.";
  return [
    ...work.moves.map((move) => ({
      property: property(move.disk, "storage"),
      reason:
        `moving disk ${move.disk} of ${vmLabel(vm)} from storage ${storageIn(volumeAt(move.disk))} ` +
        `to ${move.target.storage}: PVE refuses to move a disk a snapshot holds${then}`,
    })),
    ...work.grows
      .filter((grow) => volumeFormat(volumeAt(grow.disk)) === "qcow2")
      .map((grow) => ({
        property: property(grow.disk, "sizeGiB"),
        reason:
          `growing disk ${grow.disk} of ${vmLabel(vm)}, a qcow2 volume on storage ` +
          `${storageIn(volumeAt(grow.disk))}: PVE refuses to resize a qcow2 disk while the VM ` +
          `has a snapshot${then}`,
      })),
  ];
}

const storageIn = (volume: string): string => volume.split(":")[0] ?? "";
