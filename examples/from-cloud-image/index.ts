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
  storage: "local-lvm",
});

const vms = ["web", "db"].map(
  (name) =>
    new ProxmoxVm(name, {
      node,
      // `template` is placement: a new image replaces these VMs too, create-first. Add
      // `{ ignoreChanges: ["template"] }` to keep a VM on the image it was cloned from.
      template: debian.vmid,
      cores: 2,
      memory: 2048,
      cloudInit: { packages: ["qemu-guest-agent"] },
    }),
);

// A VM pinned to the image it was cloned from: a new image leaves it running as it is. It is a
// full clone, so it does not hold the old template, which is deleted after the replacement.
const pinned = new ProxmoxVm(
  "cache",
  { node, template: debian.vmid, cores: 1, memory: 1024 },
  { ignoreChanges: ["template"] },
);

export const templateVmid = debian.vmid;
export const image = debian.imageVolid;
export const vmids = vms.map((vm) => vm.vmid);
export const pinnedVmid = pinned.vmid;
export const addresses = vms.map((vm) => vm.ipv4Addresses);
