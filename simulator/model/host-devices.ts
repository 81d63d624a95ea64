/**
 * What a VM's start does with the host devices and directories its config names, before QEMU
 * runs (qemu-server `PVE/QemuServer.pm` `vm_start_nolock`):
 * - a mapping resolves to the start node's entries (`PVE/QemuServer/PCI.pm` `parse_hostpci`:
 *   "PCI device mapping not found for 'gpu0'"; `PVE/QemuServer/USB.pm` `parse_usb_device` the
 *   same for USB; pve-guest-common `PVE/Mapping/Dir.pm` `find_on_current_node`: "Directory ID x
 *   does not exist." / "No directory mapping for node pve2.");
 * - each PCI device is reserved for the VM (`PCI.pm` `reserve_pci_usage`): one a running VM on
 *   the node holds fails the start, "PCI device '0000:01:00.0' already in use by VMID '101'". A
 *   mapping with several devices takes the first free one (`choose_hostpci_devices`).
 */
import { parseProperty } from "../http/property-string.js";
import { passthroughFormat, VIRTIOFS } from "./passthrough-formats.js";
import type { Cluster } from "./cluster.js";
import type { VmRecord } from "./types.js";
import type { PveVersion } from "./versions.js";

/** `lspci`'s full id: the domain `0000:` when left out, function `.0` for a whole device. */
function fullPciId(id: string): string {
  const withDomain = /^[a-f0-9]{4,}:/i.test(id) && id.split(":").length === 3 ? id : `0000:${id}`;
  return /\.[a-f0-9]$/i.test(withDomain) ? withDomain : `${withDomain}.0`;
}

/** The PCI devices each running VM holds, by VMID. */
export type PciReservations = Map<number, readonly string[]>;

function holderOf(cluster: Cluster, vm: VmRecord, id: string): number | undefined {
  for (const other of cluster.vms.values()) {
    if (other.vmid === vm.vmid || other.node !== vm.node || other.status !== "running") continue;
    if ((other.pciDevices ?? []).includes(id)) return other.vmid;
  }
  return undefined;
}

/**
 * The PCI devices the VM takes as it starts; throws PVE's die text when a mapping has no entry
 * for the node, or every device it could take is held by another running VM.
 */
export function reserveHostDevices(
  cluster: Cluster,
  vm: VmRecord,
  release: PveVersion,
): readonly string[] {
  const taken: string[] = [];
  for (const [key, value] of Object.entries(vm.config).sort()) {
    const format = passthroughFormat(key, release);
    if (format === undefined) continue;
    const parsed = parseProperty(format, String(value));
    if (typeof parsed === "string") continue;
    if (format === VIRTIOFS) {
      const dirid = parsed["dirid"] ?? "";
      const entries = cluster.mappings.entriesOn("dir", dirid, vm.node);
      if (entries === undefined) throw new Error(`Directory ID ${dirid} does not exist.`);
      if (entries.length === 0) throw new Error(`No directory mapping for node ${vm.node}.`);
      continue;
    }
    const mapping = parsed["mapping"];
    const pci = key.startsWith("hostpci");
    let alternatives: string[][];
    if (mapping !== undefined) {
      const entries = cluster.mappings.entriesOn(pci ? "pci" : "usb", mapping, vm.node) ?? [];
      if (entries.length === 0)
        throw new Error(`${pci ? "PCI" : "USB"} device mapping not found for '${mapping}'`);
      alternatives = entries.map((entry) => (entry["path"] ?? "").split(";"));
    } else if (parsed["host"] !== undefined) {
      alternatives = [parsed["host"].split(";")];
    } else throw new Error("Either 'host' or 'mapping' must be set.");
    if (!pci) continue;
    let refusal: string | undefined;
    const free = alternatives.find((ids) => {
      for (const id of ids.map(fullPciId)) {
        const holder = holderOf(cluster, vm, id);
        if (holder !== undefined || taken.includes(id)) {
          refusal ??= `PCI device '${id}' already in use by VMID '${holder ?? vm.vmid}'`;
          return false;
        }
      }
      return true;
    });
    if (free === undefined) throw new Error(refusal);
    taken.push(...free.map(fullPciId));
  }
  return taken;
}
