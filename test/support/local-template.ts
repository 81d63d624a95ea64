import type { TemplateSeed } from "../../simulator";

/**
 * A template whose disk is on pve1's node-local `local-lvm`: PVE clones it only on pve1, and
 * only a full clone can then leave pve1 (by migration).
 */
export const LOCAL_TEMPLATE: TemplateSeed = {
  vmid: 9100,
  node: "pve1",
  config: {
    name: "local-base",
    template: 1,
    agent: "1",
    scsi0: "local-lvm:base-9100-disk-0,size=2G",
    boot: "order=scsi0",
    net0: "virtio=BC:24:11:91:00:00,bridge=vmbr0",
  },
};
