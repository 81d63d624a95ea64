import * as pulumi from "@pulumi/pulumi";
import { ProxmoxVm } from "pulumi-proxmox";

// Connection settings come from stack config (`proxmox:endpoint`, `proxmox:apiToken` as a
// secret, `proxmox:caCert`) or from PROXMOX_VE_ENDPOINT / PROXMOX_VE_API_TOKEN.
const config = new pulumi.Config();
const template = config.get("template") ?? "debian-12-cloud";

const vm = new ProxmoxVm("web", {
  node: config.get("node") ?? "pve1",
  template: /^\d+$/.test(template) ? Number(template) : template,
  cores: 2,
  memory: 2048,
  diskSize: 20,
  tags: ["example", "web"],
  // The default, written out: a drift check that reads the program's inputs (examples/ci-drift)
  // names a stopped VM only when the program says it should run.
  started: true,
  cloudInit: {
    packages: ["nginx"],
    runcmd: ["systemctl enable --now nginx"],
  },
});

export const vmid = vm.vmid;
export const name = vm.vmName;
export const node = vm.currentNode;
export const ipv4 = vm.ipv4Addresses;
