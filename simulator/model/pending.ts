import type { Cluster } from "./cluster.js";
import type { VmRecord } from "./types.js";
import { driveVolume, DRIVE_KEY, isCdrom, unset } from "./vm-config.js";

/** The first free `unusedN` key of a config. */
function freeUnusedKey(vm: VmRecord): string {
  let n = 0;
  while (vm.config[`unused${n}`] !== undefined) n += 1;
  return `unused${n}`;
}

/**
 * Removes a config key the way qemu-server's vmconfig_delete_or_detach_drive does: a disk's
 * volume is kept as `unusedN` (unless `force`), an `unusedN` volume or a forced delete frees the
 * volume the VM owns, a CD-ROM is only ejected.
 */
export function removeKey(cluster: Cluster, vm: VmRecord, key: string, force: boolean): void {
  const value = vm.config[key];
  unset(vm.config, key);
  if (value === undefined || !DRIVE_KEY.test(key) || isCdrom(String(value))) return;
  const volid = driveVolume(String(value));
  if (volid === undefined) return;
  const owned = cluster.volume(vm.node, volid)?.vmid === vm.vmid;
  if (force || key.startsWith("unused")) {
    if (owned) cluster.deleteVolume(vm.node, volid);
    return;
  }
  const known = Object.entries(vm.config).some(
    ([other, v]) => other.startsWith("unused") && driveVolume(String(v)) === volid,
  );
  if (!known) vm.config[freeUnusedKey(vm)] = volid;
}

/** Writes one change (`null` deletes) to the current config. */
export function applyChange(
  cluster: Cluster,
  vm: VmRecord,
  key: string,
  value: string | number | null,
  force = false,
): void {
  if (value === null) {
    removeKey(cluster, vm, key, force);
    return;
  }
  const before = vm.config[key];
  vm.config[key] = value;
  // A disk replaced by another volume keeps its old volume as unused, as PVE does.
  if (before !== undefined && DRIVE_KEY.test(key) && !isCdrom(String(before))) {
    const old = driveVolume(String(before));
    if (old !== undefined && old !== driveVolume(String(value))) {
      vm.config[freeUnusedKey(vm)] = old;
    }
  }
}

/** Applies every pending change, as a VM start (vmconfig_apply_pending) does. */
export function applyPending(cluster: Cluster, vm: VmRecord): void {
  for (const [key, value] of Object.entries(vm.pending)) applyChange(cluster, vm, key, value);
  vm.pending = {};
}

/** Drops pending values equal to the current ones (PVE's cleanup_pending). */
export function cleanupPending(vm: VmRecord): void {
  for (const [key, value] of Object.entries(vm.pending)) {
    const same =
      value === null ? vm.config[key] === undefined : String(vm.config[key]) === String(value);
    if (same) unset(vm.pending, key);
  }
}
