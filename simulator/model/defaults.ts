import type { NodeSeed, StorageSeed, TemplateSeed } from "./types.js";

/** Two nodes, so cross-node clones and migrations can be exercised. */
export const DEFAULT_NODES: readonly NodeSeed[] = [{ name: "pve1" }, { name: "pve2" }];

/** The content types a PVE storage can hold (`pvesm set --content`). */
export const CONTENT_TYPES = [
  "iso",
  "images",
  "rootdir",
  "vztmpl",
  "backup",
  "snippets",
  "import",
] as const;

export const DEFAULT_STORAGES: readonly StorageSeed[] = [
  { storage: "local", type: "dir", content: ["iso", "vztmpl", "backup"], shared: false },
  { storage: "local-lvm", type: "lvmthin", content: ["images", "rootdir"], shared: false },
  { storage: "shared", type: "nfs", content: ["images", "iso"], shared: true },
];

function template(vmid: number, node: string, name: string, mac: string): TemplateSeed {
  return {
    vmid,
    node,
    config: {
      name,
      template: 1,
      agent: "1",
      cores: 2,
      sockets: 1,
      memory: "2048",
      ostype: "l26",
      scsihw: "virtio-scsi-pci",
      scsi0: `shared:base-${vmid}-disk-0,size=2G`,
      boot: "order=scsi0",
      net0: `virtio=${mac},bridge=vmbr0`,
      serial0: "socket",
      vga: "serial0",
      smbios1: `uuid=00000000-0000-4000-8000-00000000${String(vmid).padStart(4, "0")}`,
    },
  };
}

export const DEFAULT_TEMPLATES: readonly TemplateSeed[] = [
  template(9000, "pve1", "debian-12-cloud", "BC:24:11:90:00:00"),
  template(9001, "pve2", "ubuntu-24-04-cloud", "BC:24:11:90:01:00"),
];

/** Per-bridge DHCP pools of the simulated network. */
export const DEFAULT_BRIDGES: Readonly<Record<string, string>> = { vmbr0: "10.10.0.0/24" };
