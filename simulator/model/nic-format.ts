import { randomBytes } from "node:crypto";
import { parseProperty, printProperty, type PropertyFormat } from "../http/property-string.js";
import { bool, opt } from "./drive-format.js";

/**
 * The `netN` property string (`virtio=BC:24:11:00:00:01,bridge=vmbr0`), from qemu-server's
 * `$net_fmt` (`PVE/QemuServer.pm` up to 8.x, `PVE/QemuServer/Network.pm` in 9.x): the same on
 * every modelled release. `model` is the default key and each model name is a key alias, so
 * `virtio=<mac>` and `model=virtio,macaddr=<mac>` are one NIC.
 */

export const NIC_MODELS = [
  "e1000",
  "e1000-82540em",
  "e1000-82544gc",
  "e1000-82545em",
  "e1000e",
  "i82551",
  "i82557b",
  "i82559er",
  "ne2k_isa",
  "ne2k_pci",
  "pcnet",
  "rtl8139",
  "virtio",
  "vmxnet3",
];

function macAddress(value: string): string | undefined {
  return /^[a-f0-9][02468ace](?::[a-f0-9]{2}){5}$/i.test(value)
    ? undefined
    : "value does not look like a valid unicast MAC address";
}

export const NET_FORMAT: PropertyFormat = {
  model: { type: "string", defaultKey: true, enum: NIC_MODELS },
  ...Object.fromEntries(
    NIC_MODELS.map((model) => [model, { alias: "macaddr", keyAlias: "model" }]),
  ),
  macaddr: opt("string", { verify: macAddress }),
  bridge: opt("string", { pattern: /^[-_.\w\d]+$/ }),
  tag: opt("integer", { min: 1, max: 4094 }),
  trunks: opt("string", { pattern: /^\d+(?:-\d+)?(?:;\d+(?:-\d+)?)*$/ }),
  firewall: bool,
  link_down: bool,
  mtu: opt("integer", { min: 1, max: 65520 }),
  queues: opt("integer", { min: 0, max: 64 }),
  rate: opt("number", { min: 0 }),
};

/** A parsed NIC: `model`, `macaddr`, `bridge`… as PVE keeps them. */
export type Nic = Record<string, string>;

/** A MAC with Proxmox's OUI (datacenter `mac_prefix` default BC:24:11), as random_ether_addr. */
export function generateMac(): string {
  const tail = [...randomBytes(3)].map((b) => b.toString(16).padStart(2, "0").toUpperCase());
  return ["BC", "24", "11", ...tail].join(":");
}

/**
 * parse_net: the NIC of a `netN` value, with a generated MAC when it names none (unless
 * `keepMissingMac`), or undefined when the value does not parse.
 */
export function parseNic(value: string, keepMissingMac = false): Nic | undefined {
  const nic = parseProperty(NET_FORMAT, value);
  if (typeof nic === "string") return undefined;
  if (nic["macaddr"] === undefined && !keepMissingMac) nic["macaddr"] = generateMac();
  return nic;
}

/** print_net: `<model>=<mac>` first, then the other options sorted by key. */
export function printNic(nic: Readonly<Nic>): string {
  return printProperty(NET_FORMAT, nic);
}

/** What update_vm and create_vm store for a `netN` value: parsed (MAC filled in), printed again. */
export function renderNic(value: string): string {
  const nic = parseNic(value);
  return nic === undefined ? value : printNic(nic);
}
