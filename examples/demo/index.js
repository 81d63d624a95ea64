// The demo program: plain JavaScript, so it runs without a compiler. It starts from a cluster
// with no template: PVE downloads a cloud image (`imageUrl`, checked against `imageSha256`) and
// makes a template of it, and two VMs are cloned from that template, one per node, each seeded
// with cloud-init.
// Connection settings: stack config `proxmox:endpoint`, `proxmox:apiToken` (secret),
// `proxmox:caCert`, or PROXMOX_VE_ENDPOINT / PROXMOX_VE_API_TOKEN.
"use strict";
const pulumi = require("@pulumi/pulumi");
const { CloudImageTemplate, ProxmoxVm } = require("pulumi-proxmox");

const config = new pulumi.Config();
const sha256 = config.get("imageSha256");

const base = new CloudImageTemplate("demo-base", {
  url: config.require("imageUrl"),
  ...(sha256 === undefined ? {} : { checksum: sha256, checksumAlgorithm: "sha256" }),
  node: "pve1",
  importStorage: "local", // a file storage with `import` content
  storage: "shared", // shared storage: one template serves every node
});

const web = new ProxmoxVm("web", {
  node: "pve1",
  template: base.vmid,
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
  template: base.vmid,
  cores: 1,
  memory: 2048,
  tags: ["demo", "db"],
  cloudInit: {
    packages: ["postgresql"],
  },
});

const vms = { web, db };
exports.templateVmid = base.vmid;
exports.names = pulumi.all(Object.values(vms).map((vm) => vm.vmName));
exports.nodes = pulumi.all(Object.values(vms).map((vm) => vm.currentNode));
exports.ips = pulumi.all(Object.values(vms).map((vm) => vm.ipv4Addresses));
exports.vmids = pulumi.all(Object.values(vms).map((vm) => vm.vmid));
