import type { Cluster } from "./cluster.js";
import { allocateDisk } from "./disk-volumes.js";
import { isCloudinitVolume, parseDrive, printDrive, type Drive } from "./drive-format.js";
import { FILE_BASED } from "./storage-files.js";
import type { VmConfig } from "./types.js";
import type { PveVersion } from "./versions.js";

/**
 * qemu-server's create_disks for one drive (`PVE/API2/Qemu.pm`), shared by create and config
 * updates: what a drive value becomes before it is stored. A `<storage>:<GiB>` value allocates
 * a disk, `<storage>:cloudinit` PVE's cloud-init volume, an existing volume gets its size; every
 * value is parsed and printed again (`file=`/`volume=` become the bare volume, options sorted).
 */

/** PVE's NEW_DISK_RE: `<storage>:<GiB>` (or a bare size with a default storage). */
export const NEW_DISK = /^(?:([^/:\s]+):)?(\d+(?:\.\d+)?)$/;

/** CLOUDINIT_DISK_SIZE in `PVE/QemuServer/Cloudinit.pm`. */
const CLOUDINIT_BYTES = 4 * 1024 * 1024;

/** A drive create_disks refuses: PVE's die text (the caller adds the key where PVE does). */
export class DriveError extends Error {}

export interface DriveTarget {
  readonly cluster: Cluster;
  readonly node: string;
  readonly vmid: number;
  readonly release: PveVersion;
  /** The config and pending values a second cloud-init drive is checked against. */
  readonly others: readonly VmConfig[];
  /** The `storage` parameter of a create, for a bare size or `cloudinit`. */
  readonly defaultStorage?: string;
  /** Volumes allocated so far, freed by the caller when a later step fails. */
  readonly created: string[];
}

/** The key of another drive that already is a cloud-init drive (has_cloudinit), if any. */
function cloudinitElsewhere(key: string, configs: readonly VmConfig[]): string | undefined {
  for (const config of configs) {
    for (const [other, value] of Object.entries(config)) {
      if (other === key || !/^(ide|sata|scsi|virtio)\d+$/.test(other)) continue;
      const file = String(value).split(",")[0] ?? "";
      if (isCloudinitVolume(file)) return other;
    }
  }
  return undefined;
}

/** The storage's definition on the node, or storage_config's die text. */
function storageOf(target: DriveTarget, storage: string): { type: string } {
  const def = target.cluster.storageOn(target.node, storage);
  if (def === undefined) throw new DriveError(`storage '${storage}' does not exist`);
  return def;
}

/**
 * The cloud-init volume: `vm-<vmid>-cloudinit` (`.qcow2` on file storages, as create_disks
 * names it where the storage has a path), 4 MiB, shown as a CD-ROM. create_disks checks no
 * content type here ($check_storage_access skips `cloudinit` too): any storage may hold it.
 */
function createCloudinit(target: DriveTarget, key: string, drive: Drive, sid: string): string {
  const elsewhere = cloudinitElsewhere(key, target.others);
  if (elsewhere !== undefined)
    throw new DriveError(`${key} - cloud-init drive is already attached at '${elsewhere}'`);
  const def = storageOf(target, sid);
  const fileBased = FILE_BASED.has(def.type);
  const format = drive["format"] ?? (fileBased ? "qcow2" : "raw");
  const volid = `${sid}:vm-${target.vmid}-cloudinit${fileBased ? `.${format}` : ""}`;
  target.cluster.putVolume(target.node, {
    volid,
    storage: sid,
    content: "images",
    format,
    size: CLOUDINIT_BYTES,
    ctime: Math.floor(Date.now() / 1000),
    vmid: target.vmid,
  });
  target.created.push(volid);
  const { format: _format, ...rest } = drive;
  return printDrive({ ...rest, file: volid, media: "cdrom" }, target.release);
}

/** TPM state and EFI vars get the size their content needs, whatever size was asked for. */
function fixedDiskBytes(key: string, drive: Drive): number | undefined {
  if (key === "tpmstate0") return 4 * 1024 ** 2;
  if (key !== "efidisk0") return undefined;
  return drive["efitype"] === "4m" ? 528 * 1024 : 128 * 1024;
}

/** The value create_disks stores for drive `key` (the request's value, already schema-checked). */
export function createDrive(target: DriveTarget, key: string, value: string): string {
  const drive = parseDrive(key, value, target.release);
  if (drive === undefined) throw new DriveError("unable to parse drive options");
  const file = drive["file"] ?? "";
  const [, sid, volname] = /^(?:([^:]+):)?(.*)$/.exec(file) ?? [];
  if (file === "" || file === "none" || file === "cdrom") {
    delete drive["size"];
    return printDrive(drive, target.release);
  }
  if (volname === "cloudinit") {
    const storage = sid ?? target.defaultStorage;
    if (storage === undefined)
      throw new DriveError("no storage ID specified (and no default storage)");
    return createCloudinit(target, key, drive, storage);
  }
  const newDisk = NEW_DISK.exec(file);
  if (newDisk !== null) {
    const storage = newDisk[1] ?? target.defaultStorage;
    if (storage === undefined)
      throw new DriveError("no storage ID specified (and no default storage)");
    storageOf(target, storage);
    const bytes = fixedDiskBytes(key, drive) ?? Number(newDisk[2]) * 1024 ** 3;
    const format = drive["format"];
    const volid = allocateDisk(target.cluster, target.node, storage, target.vmid, bytes, format);
    target.created.push(volid);
    const { format: _format, ...rest } = drive;
    return printDrive({ ...rest, file: volid, size: String(bytes) }, target.release);
  }
  if (sid !== undefined) {
    storageOf(target, sid);
    if (isCloudinitVolume(file)) {
      const elsewhere = cloudinitElsewhere(key, target.others);
      if (elsewhere !== undefined)
        throw new DriveError(`${key} - cloud-init drive is already attached at '${elsewhere}'`);
    }
    const size = target.cluster.volume(target.node, file)?.size;
    if (size === undefined) throw new DriveError(`volume ${file} does not exist`);
    return printDrive({ ...drive, size: String(size) }, target.release);
  }
  return printDrive(drive, target.release);
}
