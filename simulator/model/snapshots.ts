import type { Cluster } from "./cluster.js";
import { addUnused } from "./pending.js";
import type { SnapshotRecord, StorageSeed, VmConfig, VmRecord } from "./types.js";
import {
  driveVolume,
  DRIVE_KEY,
  isCdrom,
  memoryBytes,
  parsePropertyString,
  sizeToBytes,
} from "./vm-config.js";

/**
 * Snapshots as qemu-server keeps them: a `[name]` section of the VM's config holding a copy of
 * the config (pve-guest-common `PVE/AbstractConfig.pm`, `__snapshot_copy_config`), and on each
 * disk a storage snapshot of the same name. The routes (routes/qemu-snapshot.ts) hold the order
 * of checks and locks; this module holds the config and storage facts.
 */

/** Storage types whose volumes have the snapshot feature whatever their format. */
const ALWAYS_SNAPSHOTS = new Set(["lvmthin", "zfspool", "zfs", "rbd"]);
/** File-based storage types: only a qcow2 image can be snapshotted. */
const FILE_BASED = new Set(["dir", "nfs", "cifs", "glusterfs"]);

/**
 * pve-storage's `volume_has_feature($storecfg, 'snapshot', …)` per plugin (`PVE/Storage/*.pm`):
 * `Plugin.pm` (dir, nfs, cifs, glusterfs) only for `qcow2`; `LvmThinPlugin.pm`,
 * `ZFSPoolPlugin.pm` and `RBDPlugin.pm` always; `LVMPlugin.pm` (thick LVM) and the iSCSI
 * plugins never.
 */
export function hasSnapshotFeature(storage: StorageSeed | undefined, format: string): boolean {
  if (storage === undefined) return false;
  if (ALWAYS_SNAPSHOTS.has(storage.type)) return true;
  return FILE_BASED.has(storage.type) && format === "qcow2";
}

/** The disks a snapshot covers: every drive with a volume but CD-ROMs (foreach_volume). */
export function snapshotDisks(config: VmConfig): { key: string; volid: string }[] {
  const disks: { key: string; volid: string }[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (!DRIVE_KEY.test(key) || key.startsWith("unused") || isCdrom(String(value))) continue;
    const volid = driveVolume(String(value));
    if (volid !== undefined) disks.push({ key, volid });
  }
  return disks;
}

/**
 * QemuConfig `has_feature('snapshot', …)`: the first disk whose storage cannot snapshot it, or
 * undefined when every disk can. PVE then dies "snapshot feature is not available".
 */
export function diskWithoutSnapshots(
  cluster: Cluster,
  vm: VmRecord,
): { key: string; volid: string } | undefined {
  return snapshotDisks(vm.config).find(({ volid }) => {
    const storage = cluster.storageOn(vm.node, volid.split(":")[0] ?? "");
    const format = cluster.volume(vm.node, volid)?.format ?? "raw";
    return !hasSnapshotFeature(storage, format);
  });
}

/** `__snapshot_copy_config`: every key but the lock, digest, description and unused disks. */
export function copyForSnapshot(config: VmConfig): VmConfig {
  const copy: VmConfig = {};
  for (const [key, value] of Object.entries(config)) {
    if (key === "lock" || key === "description" || /^unused\d+$/.test(key)) continue;
    copy[key] = value;
  }
  return copy;
}

/**
 * `__snapshot_save_vmstate`: a running VM's RAM goes to `vm-<vmid>-state-<name>` on the
 * `vmstatestorage`, else the storage of its first disk; about twice the RAM is reserved.
 */
export function saveVmstate(cluster: Cluster, vm: VmRecord, name: string): string | undefined {
  const storage =
    typeof vm.config["vmstatestorage"] === "string"
      ? vm.config["vmstatestorage"]
      : snapshotDisks(vm.config)[0]?.volid.split(":")[0];
  if (storage === undefined) return undefined;
  const volid = `${storage}:vm-${vm.vmid}-state-${name}`;
  cluster.putVolume(vm.node, {
    volid,
    storage,
    content: "images",
    format: "raw",
    size: memoryBytes(vm.config) * 2,
    ctime: Math.floor(Date.now() / 1000),
    vmid: vm.vmid,
  });
  return volid;
}

/**
 * `__snapshot_rollback_vol_possible`: ZFS rolls back only to its most recent snapshot
 * (ZFSPoolPlugin.pm `volume_rollback_is_possible`); every other plugin to any of them.
 */
export function rollbackRefusal(cluster: Cluster, vm: VmRecord, name: string): string | undefined {
  const names = Object.keys(vm.snapshots ?? {});
  const newer = names.slice(names.indexOf(name) + 1);
  const target = vm.snapshots?.[name];
  if (target === undefined) return undefined;
  for (const { volid } of snapshotDisks(target.config)) {
    const type = cluster.storageOn(vm.node, volid.split(":")[0] ?? "")?.type;
    if (type !== "zfspool" && type !== "zfs") continue;
    const later = newer.some((other) =>
      snapshotDisks(vm.snapshots?.[other]?.config ?? {}).some((disk) => disk.volid === volid),
    );
    if (later) return "can't rollback, more recent snapshots exist";
  }
  return undefined;
}

/**
 * The config after a rollback (`snapshot_rollback` with `__snapshot_apply_config`): the
 * snapshot's keys, the current description, snapshot list and unused disks, each disk the
 * snapshot lacks kept as unused (`__snapshot_rollback_get_unused`), and `parent` the snapshot.
 * Each disk's volume gets back the size the snapshot recorded.
 */
export function rollBack(cluster: Cluster, vm: VmRecord, name: string, snap: SnapshotRecord): void {
  const kept = new Set(snapshotDisks(snap.config).map((disk) => disk.volid));
  const dropped = snapshotDisks(vm.config).filter((disk) => !kept.has(disk.volid));
  const config: VmConfig = {};
  for (const [key, value] of Object.entries(vm.config)) {
    if (/^unused\d+$/.test(key) || key === "description") config[key] = value;
  }
  Object.assign(config, snap.config, { parent: name });
  vm.config = config;
  vm.pending = {};
  for (const { volid } of dropped) addUnused(vm, volid);
  for (const { key, volid } of snapshotDisks(snap.config)) {
    const size = parsePropertyString(String(snap.config[key])).opts["size"];
    const volume = cluster.volume(vm.node, volid);
    if (volume !== undefined && size !== undefined) volume.size = sizeToBytes(size);
  }
}

/**
 * `snapshot_delete`'s last step: the snapshot's children (and the current config, when it is
 * the parent) get its parent instead, and the section goes.
 */
export function dropSnapshot(vm: VmRecord, name: string): void {
  const snapshots = vm.snapshots ?? {};
  const parent = snapshots[name]?.config["parent"];
  const relink = (config: VmConfig): void => {
    if (config["parent"] !== name) return;
    if (parent === undefined) Reflect.deleteProperty(config, "parent");
    else config["parent"] = parent;
  };
  relink(vm.config);
  for (const [other, snap] of Object.entries(snapshots)) if (other !== name) relink(snap.config);
  Reflect.deleteProperty(snapshots, name);
  if (Object.keys(snapshots).length === 0) delete vm.snapshots;
}

/** Whether the VM has any snapshot (PVE's refusals test `%{$conf->{snapshots}}`). */
export function hasSnapshots(vm: VmRecord): boolean {
  return Object.keys(vm.snapshots ?? {}).length > 0;
}

/** Whether a snapshot still references `volid` (is_volume_in_use with the disk passed). */
export function volumeInSnapshot(vm: VmRecord, volid: string): boolean {
  return Object.values(vm.snapshots ?? {}).some((snap) =>
    snapshotDisks(snap.config).some((disk) => disk.volid === volid),
  );
}
