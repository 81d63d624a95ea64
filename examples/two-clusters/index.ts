import * as pulumi from "@pulumi/pulumi";
import { Provider, ProxmoxVm } from "pulumi-proxmox";

// The first cluster is the stack config's (`proxmox:endpoint`, `proxmox:apiToken` as a secret,
// `proxmox:caCert`): a resource without a `provider` option is made there.
//
// The second is an explicit Provider, here with its settings under the config namespace `dc2`
// (`dc2:endpoint`, `dc2:apiToken` as a secret, `dc2:caCert`); its inputs take the same settings,
// checked with the same messages, as the stack config's `proxmox:*` keys.
const dc2Config = new pulumi.Config("dc2");
const dc2 = new Provider("dc2", {
  endpoint: dc2Config.require("endpoint"),
  apiToken: dc2Config.requireSecret("apiToken"),
  caCert: dc2Config.get("caCert"),
});

const config = new pulumi.Config();
const name = config.get("template") ?? "debian-12-cloud";
const template = /^\d+$/.test(name) ? Number(name) : name;

// A template lives on one cluster: each VM clones the template of that name on its own.
const site1 = new ProxmoxVm("web-dc1", {
  node: "pve1",
  template,
  cores: 1,
  memory: 1024,
  tags: ["example", "dc1"],
});
const site2 = new ProxmoxVm(
  "web-dc2",
  { node: "pve1", template, cores: 1, memory: 1024, tags: ["example", "dc2"] },
  { provider: dc2 },
);

export const dc1Vm = { vmid: site1.vmid, name: site1.vmName, ipv4: site1.ipv4Addresses };
export const dc2Vm = { vmid: site2.vmid, name: site2.vmName, ipv4: site2.ipv4Addresses };
