import * as pulumi from "@pulumi/pulumi";
import { VmFleet, type PlacementPolicy } from "pulumi-proxmox/components";

// Connection settings come from stack config (`proxmox:endpoint`, `proxmox:apiToken` as a
// secret, `proxmox:caCert`) or from PROXMOX_VE_ENDPOINT / PROXMOX_VE_API_TOKEN.
const config = new pulumi.Config();
const placement = (config.get("placement") ?? "round-robin") as PlacementPolicy;
// Optional static addresses, e.g. `pulumi config set cidr 10.0.0.0/24` and `gateway 10.0.0.1`.
const cidr = config.get("cidr");

const web = new VmFleet("web", {
  count: config.getNumber("count") ?? 3,
  template: config.get("template") ?? "debian-12-cloud",
  nodes: config.getObject<string[]>("nodes") ?? ["pve1", "pve2"],
  placement,
  // For least-loaded: guests per node from one listing, e.g. the output of
  // `pvesh get /cluster/resources --type vm --output-format json` fed to nodeLoadsFromListing.
  ...(placement === "least-loaded"
    ? { nodeLoads: config.requireObject<Record<string, number>>("nodeLoads") }
    : {}),
  cores: 1,
  memory: 1024,
  // A data disk for every member, beside its boot disk.
  disks: [{ interface: "scsi1", sizeGiB: 10 }],
  // Member i's first NIC gets the i-th address from `from` (default: the network's first host,
  // or the next one when that is the gateway), so members keep their addresses when the count
  // changes.
  ...(cidr === undefined
    ? {}
    : { ipv4: { cidr, gateway: config.require("gateway"), from: config.get("from") } }),
  // One member set apart: web-0 also runs the cache and gets more memory. Keys are indexes or
  // member names, so raising the count never moves an override to another member.
  overrides: { "web-0": { memory: 4096 } },
  tags: ["example", "fleet"],
  cloudInit: {
    packages: ["nginx"],
    runcmd: ["systemctl enable --now nginx"],
  },
});

// Member i is the ProxmoxVm `web-i`; its hostname is `web-i` too.
export const names = pulumi.all(web.vms.map((vm) => vm.vmName));
export const nodes = web.nodes;
export const addresses = web.addresses;
