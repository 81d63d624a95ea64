/**
 * The property-string formats of the keys that hand a VM host hardware or a host directory:
 * `hostpciN` (qemu-server `PVE/QemuServer/PCI.pm`, `$hostpci_fmt`), `usbN` (`PVE/QemuServer.pm`,
 * `$usb_fmt`) and `virtiofsN` (`PVE/QemuServer/Virtiofs.pm`, `$virtiofs_fmt`). qemu-server 8.0
 * added `mapping` to the first two; virtiofs came with PVE 8.4. None is hot-plugged here: a
 * running VM keeps a change under `/pending` (USB hot-plug needs `hotplug` to list `usb`).
 */
import type { PropertyFormat } from "../http/property-string.js";
import type { PveVersion } from "./versions.js";

const PCI_ID = /(?:[a-f0-9]{4,}:)?[a-f0-9]{2}:[a-f0-9]{2}(?:\.[a-f0-9])?/;
const PCI_LIST = new RegExp(`^${PCI_ID.source}(?:;${PCI_ID.source})*$`);
const HEX_ID = /^0x[0-9a-fA-F]{4}$/;
/** pve-configid: what a mapping id must look like. */
const CONFIG_ID = /^[a-z][a-z0-9_-]+$/i;
const bool = { type: "boolean", optional: true } as const;

const HOSTPCI_7: PropertyFormat = {
  host: { type: "string", defaultKey: true, pattern: PCI_LIST },
  rombar: bool,
  romfile: { type: "string", optional: true, pattern: /^[^,;]+$/ },
  pcie: bool,
  "x-vga": bool,
  "legacy-igd": bool,
  mdev: { type: "string", optional: true, pattern: /^[^/.:]+$/ },
  "vendor-id": { type: "string", optional: true, pattern: HEX_ID },
  "device-id": { type: "string", optional: true, pattern: HEX_ID },
  "sub-vendor-id": { type: "string", optional: true, pattern: HEX_ID },
  "sub-device-id": { type: "string", optional: true, pattern: HEX_ID },
};

/** 8.0: `host` becomes optional, beside the `mapping` id it may be replaced by. */
const HOSTPCI_8: PropertyFormat = {
  ...HOSTPCI_7,
  host: { type: "string", defaultKey: true, optional: true, pattern: PCI_LIST },
  mapping: { type: "string", optional: true, pattern: CONFIG_ID },
};

/** `parse_usb_device`: `vendor:product`, `bus-port`, or `spice`. */
const USB_HOST = /^(?:(?:0x)?[0-9A-Fa-f]{4}:(?:0x)?[0-9A-Fa-f]{4}|\d+-\d+(?:\.\d+)*|spice)$/i;

const USB_7: PropertyFormat = {
  host: { type: "string", defaultKey: true, pattern: USB_HOST },
  usb3: bool,
};

const USB_8: PropertyFormat = {
  host: { type: "string", defaultKey: true, optional: true, pattern: USB_HOST },
  mapping: { type: "string", optional: true, pattern: CONFIG_ID },
  usb3: bool,
};

/** `$virtiofs_fmt` (8.4): the directory mapping's id doubles as the guest's mount tag. */
export const VIRTIOFS: PropertyFormat = {
  dirid: { type: "string", defaultKey: true, pattern: CONFIG_ID },
  cache: { type: "string", optional: true, enum: ["auto", "always", "metadata", "never"] },
  "direct-io": bool,
  writeback: bool,
  "expose-xattr": bool,
  "expose-acl": bool,
};

/** The format of `name` on `release`, when it is one of the keys above. */
export function passthroughFormat(name: string, release: PveVersion): PropertyFormat | undefined {
  const old = release === "7.4";
  if (/^hostpci\d+$/.test(name)) return old ? HOSTPCI_7 : HOSTPCI_8;
  if (/^usb\d+$/.test(name)) return old ? USB_7 : USB_8;
  if (/^virtiofs\d$/.test(name)) return VIRTIOFS;
  return undefined;
}
