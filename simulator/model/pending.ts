import type { Cluster } from "./cluster.js";
import { isCloudinitVolume } from "./drive-format.js";
import type { VmRecord } from "./types.js";
import { driveVolume, DRIVE_KEY, isCdrom, unset } from "./vm-config.js";

/** Keeps a volume in the config as the first free `unusedN`, once (PVE's add_unused_volume). */
export function addUnused(vm: VmRecord, volid: string): void {
  const known = Object.entries(vm.config).some(
    ([key, value]) => key.startsWith("unused") && driveVolume(String(value)) === volid,
  );
  if (known) return;
  let n = 0;
  while (vm.config[`unused${n}`] !== undefined) n += 1;
  vm.config[`unused${n}`] = volid;
}

/** Frees a volume if the VM owns it; a template's base volume or another VM's is left alone. */
export function freeOwnedVolume(cluster: Cluster, vm: VmRecord, volid: string): void {
  if (cluster.volume(vm.node, volid)?.vmid === vm.vmid) cluster.deleteVolume(vm.node, volid);
}

/**
 * Removes a config key the way qemu-server's vmconfig_delete_or_detach_drive does: a disk's
 * volume is kept as `unusedN` (unless `force`), an `unusedN` volume or a forced delete frees the
 * volume the VM owns, a CD-ROM is only ejected.
 */
function removeKey(cluster: Cluster, vm: VmRecord, key: string, force: boolean): void {
  const value = vm.config[key];
  unset(vm.config, key);
  if (value === undefined || !DRIVE_KEY.test(key)) return;
  const volid = driveVolume(String(value));
  // vmconfig_register_unused_drive frees a cloud-init volume; any other CD-ROM is only ejected.
  if (volid !== undefined && isCloudinitVolume(volid)) {
    freeOwnedVolume(cluster, vm, volid);
    return;
  }
  if (isCdrom(String(value))) return;
  if (volid === undefined) return;
  if (force || key.startsWith("unused")) freeOwnedVolume(cluster, vm, volid);
  else addUnused(vm, volid);
}

/** The keys whose changes PVE records for the cloud-init drive's pending view. */
const CLOUDINIT_KEY =
  /^(cicustom|cipassword|citype|ciuser|ciupgrade|nameserver|searchdomain|sshkeys|ipconfig\d+)$/;

/** Records the value a cloud-init option had before its first change since the drive was made. */
function recordCloudinitChange(vm: VmRecord, key: string, value: string | number | null): void {
  const before = vm.config[key];
  if (!CLOUDINIT_KEY.test(key) || String(before) === String(value)) return;
  vm.cloudinitChanges ??= {};
  if (!(key in vm.cloudinitChanges)) vm.cloudinitChanges[key] = before ?? null;
}

/** Writes one change (`null` deletes) to the current config. */
export function applyChange(
  cluster: Cluster,
  vm: VmRecord,
  key: string,
  value: string | number | null,
  force = false,
): void {
  recordCloudinitChange(vm, key, value);
  if (value === null) {
    removeKey(cluster, vm, key, force);
    return;
  }
  const before = vm.config[key];
  vm.config[key] = value;
  // A disk replaced by another volume keeps its old volume as unused, as PVE does.
  if (before !== undefined && DRIVE_KEY.test(key) && !isCdrom(String(before))) {
    const old = driveVolume(String(before));
    if (old !== undefined && old !== driveVolume(String(value))) addUnused(vm, old);
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
