// The demo program: plain JavaScript, so it runs without a compiler. Two VMs cloned from the
// simulator's cloud-init templates, one per node, each seeded with cloud-init.
// Connection settings: stack config `proxmox:endpoint`, `proxmox:apiToken` (secret),
// `proxmox:caCert`, or PROXMOX_VE_ENDPOINT / PROXMOX_VE_API_TOKEN.
"use strict";
const pulumi = require("@pulumi/pulumi");
const { ProxmoxVm } = require("pulumi-proxmox");

const web = new ProxmoxVm("web", {
  node: "pve1",
  template: "debian-12-cloud",
  cores: 2,
  memory: 1024,
  tags: ["demo", "web"],
  cloudInit: {
    packages: ["nginx"],
    runcmd: ["systemctl enable --now nginx"],
  },
});

const db = new ProxmoxVm("db", {
  node: "pve2",
  template: "ubuntu-24-04-cloud",
  cores: 1,
  memory: 2048,
  tags: ["demo", "db"],
  cloudInit: {
    packages: ["postgresql"],
  },
});

const vms = { web, db };
exports.names = pulumi.all(Object.values(vms).map((vm) => vm.vmName));
exports.nodes = pulumi.all(Object.values(vms).map((vm) => vm.currentNode));
exports.ips = pulumi.all(Object.values(vms).map((vm) => vm.ipv4Addresses));
exports.vmids = pulumi.all(Object.values(vms).map((vm) => vm.vmid));
