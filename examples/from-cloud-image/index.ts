import * as pulumi from "@pulumi/pulumi";
import { CloudImageTemplate, ProxmoxVm } from "pulumi-proxmox";

// From a cluster with no template: PVE downloads the image, imports it and makes the template;
// the VMs are cloned from it. Connection settings come from stack config (`proxmox:endpoint`,
// `proxmox:apiToken` as a secret, `proxmox:caCert`) or PROXMOX_VE_ENDPOINT / PROXMOX_VE_API_TOKEN.
const config = new pulumi.Config();
const node = config.get("node") ?? "pve1";
const sha256 = config.get("imageSha256") ?? "";

const debian = new CloudImageTemplate("debian-12", {
  url: config.require("imageUrl"),
  ...(sha256 === "" ? {} : { checksum: sha256, checksumAlgorithm: "sha256" as const }),
  node,
  importStorage: "local",
  // LVM-thin: a linked clone's disks are thin children of the template's base volume.
  storage: "local-lvm",
});

// Full clones pinned to the image they were cloned from: `template` is placement, so without
// `ignoreChanges` a new image would replace them too (create-first). A full clone does not hold
// its template, so the old template is still deleted once it is replaced.
const servers = ["web", "db"].map(
  (name) =>
    new ProxmoxVm(
      name,
      {
        node,
        template: debian.vmid,
        cores: 2,
        memory: 2048,
        cloudInit: { packages: ["qemu-guest-agent"] },
      },
      { ignoreChanges: ["template"] },
    ),
);

// A linked clone follows the image: it is made in seconds, but its disk is built on the
// template's base volume, so it cannot outlive the template. A new image replaces it with the
// template, create-first, and the old one is deleted before the old template.
const runner = new ProxmoxVm("runner", {
  node,
  template: debian.vmid,
  clone: { full: false },
  cores: 1,
  memory: 1024,
});

export const templateVmid = debian.vmid;
export const image = debian.imageVolid;
export const serverVmids = servers.map((vm) => vm.vmid);
export const runnerVmid = runner.vmid;
export const addresses = servers.map((vm) => vm.ipv4Addresses);
