import { dieError } from "../http/pve-error.js";
import type { Cluster } from "./cluster.js";
import type { VmRecord, Volume } from "./types.js";
import { driveVolume, DRIVE_KEY, isCdrom } from "./vm-config.js";

/**
 * Base volumes and the linked clones that depend on them. A template's disk is a base volume
 * (`base-<vmid>-disk-<n>`); a linked clone's disk names it (`base-100-disk-0/vm-101-disk-0`),
 * as PVE's volume names do.
 */
export function isBaseVolume(volid: string): boolean {
  return /^[^:]+:base-\d+-disk-\d+$/.test(volid);
}

/** The base a linked clone's volume depends on (`base-100-disk-0`), if it is one. */
function baseOf(volid: string): string | undefined {
  return /^[^:]+:(base-\d+-disk-\d+)\//.exec(volid)?.[1];
}

/** The volumes on the base volume's storage (as `node` sees it) that are linked clones of it. */
function linkedClonesOf(cluster: Cluster, node: string, baseVolid: string): Volume[] {
  const [storage = "", basename = ""] = baseVolid.split(":");
  return cluster.volumesIn(node, storage).filter((v) => baseOf(v.volid) === basename);
}

/** `vm-100-disk-0` → `base-100-disk-0`: the name template_create gives a VM's disk. */
export function baseName(volid: string): string {
  return volid.replace(/:vm-(\d+-disk-\d+)$/, ":base-$1");
}

/**
 * destroy_vm's check for a template: before anything is removed, each disk that is a base
 * volume must have no linked clone left (PVE's text, "cloned" included).
 */
export function assertBasesUnused(cluster: Cluster, node: string, vm: VmRecord): void {
  for (const [key, value] of Object.entries(vm.config)) {
    const volid = DRIVE_KEY.test(key) ? driveVolume(String(value)) : undefined;
    if (volid === undefined || isCdrom(String(value)) || !isBaseVolume(volid)) continue;
    if (linkedClonesOf(cluster, node, volid).length > 0)
      throw dieError(`base volume '${volid}' is still in use by linked cloned`);
  }
}

/**
 * QemuMigrate's refusal to copy a linked clone's local disk (its base stays behind). PVE dies
 * without a newline, so its text also ends with the Perl source line; the simulator's does not.
 */
export function migrationRefusal(cluster: Cluster, node: string, vm: VmRecord): string | undefined {
  for (const [key, value] of Object.entries(vm.config)) {
    const volid = DRIVE_KEY.test(key) ? driveVolume(String(value)) : undefined;
    const base = volid === undefined ? undefined : baseOf(volid);
    if (base === undefined || cluster.storageOn(node, volid?.split(":")[0] ?? "")?.shared === true)
      continue;
    return `can't migrate '${volid}' as it's a clone of '${base}'`;
  }
  return undefined;
}
