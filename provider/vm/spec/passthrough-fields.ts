/**
 * Host hardware and host directories the VM gets: PCI and USB devices, best through PVE's
 * cluster resource mappings (`/cluster/mapping/{pci,usb}`, PVE 8.0+), and virtiofs shares of
 * directory mappings (`/cluster/mapping/dir`, PVE 8.4+). qemu-server lets only root@pam set raw
 * host ids (`PVE/API2/Qemu.pm` `check_hostpci_perm`, `check_usb_perm`); a mapping wants
 * `Mapping.Use` on `/mapping/<type>/<id>` instead. The lookups that need the API (the login, the
 * release, each mapping's entry for the node) are in steps/host-devices.ts.
 *
 * PCI devices and virtiofs shares are never hot-plugged (`vmconfig_hotplug_pending` has no case
 * for them): a running VM takes a change at its next reboot. A USB device is, when the VM's
 * `hotplug` has `usb`.
 */
import { z } from "zod";
import { canonical } from "../../inputs/canonical";
import { field, type HotWhen } from "./field";
import { text } from "./firmware";
import {
  asked,
  formatHostPci,
  formatUsb,
  formatVirtiofs,
  hostPciSchema,
  parseHostPci,
  parseUsb,
  parseVirtiofs,
  usbSchema,
  virtiofsSchema,
} from "./passthrough";

/** Each list's keys: `hostpci0`… as the program lists the devices. */
const keysOf = <T>(prefix: string, list: readonly T[], format: (item: T) => string) =>
  Object.fromEntries(list.map((item, i) => [`${prefix}${i}`, format(item)]));

/** Whether PVE's value says what the wanted one says, each with PVE's defaults filled in. */
const sameBy =
  (parse: (value: string | undefined) => unknown) =>
  (_key: string, current: unknown, wanted: string | number) =>
    current !== undefined && canonical(parse(text(current))) === canonical(parse(String(wanted)));

const readList =
  <T extends object>(
    prefix: string,
    parse: (value: string | undefined) => Required<T> | undefined,
  ) =>
  ({ config }: { config: Readonly<Record<string, unknown>> }, input: readonly T[]): T[] =>
    input.flatMap((item, i) => {
      const now = parse(text(config[`${prefix}${i}`]));
      return now === undefined ? [] : [asked(now, item)];
    });

/**
 * All a VM sets of a list (`pulumi-proxmox import`): hostpci0, hostpci1… up to the first gap (the
 * program's list is numbered from 0, so a later key cannot be said), each without PVE's defaults.
 */
const probeList =
  <T extends object>(
    prefix: string,
    parse: (value: string | undefined) => Required<T> | undefined,
  ) =>
  ({ config }: { config: Readonly<Record<string, unknown>> }): T[] | undefined => {
    const defaults = parse("") as Record<string, unknown>;
    const list: T[] = [];
    for (let i = 0; config[`${prefix}${i}`] !== undefined; i++) {
      const now = parse(text(config[`${prefix}${i}`])) as Record<string, unknown>;
      const set = Object.entries(now).filter(([k, v]) => v !== undefined && v !== defaults[k]);
      list.push(Object.fromEntries(set) as T);
    }
    return list.length === 0 ? undefined : list;
  };

const isQ35 = (machine: unknown) => typeof machine === "string" && /q35/.test(machine);

const USB_HOT: Readonly<Record<string, HotWhen>> = Object.fromEntries(
  Array.from({ length: 14 }, (_, i) => [`usb${i}`, { hotplug: "usb" } as const]),
);

export const PASSTHROUGH_FIELDS = {
  hostPci: field({
    doc:
      "Host PCI devices (hostpci0…), each a resource `mapping` (Datacenter → Resource Mappings; " +
      "the token needs Mapping.Use on /mapping/pci/<id>) or a raw `host` id, which PVE lets only " +
      "root@pam set (a password login). `pcie` needs `machine: q35`. A running VM takes a change " +
      "at its next reboot.",
    docType:
      "{ mapping?: string; host?: string; pcie?: boolean; rombar?: boolean; xVga?: boolean; mdev?: string }[]",
    schema: z.array(hostPciSchema).max(16, "PVE takes at most 16 devices (hostpci0 to hostpci15)"),
    mayBeUnknown: true,
    change: "reboot",
    stored: z.array(z.looseObject({})).optional(),
    configKeys: {
      format: (list) => keysOf("hostpci", list, formatHostPci),
      same: sameBy(parseHostPci),
    },
    ownsKeys: /^hostpci\d+$/,
    conflict: (list, inputs) => {
      const index = list.findIndex((device) => device.pcie === true);
      if (index < 0 || isQ35(inputs["machine"])) return undefined;
      return (
        `hostPci[${index}].pcie puts the device on the PCI Express bus, which only the q35 ` +
        'machine has: set machine: "q35", or leave pcie out.'
      );
    },
    readBack: {
      from: "vm",
      read: readList("hostpci", parseHostPci),
      probe: probeList("hostpci", parseHostPci),
    },
    example: {
      valid: [{ mapping: "gpu0", xVga: true }, { host: "0000:02:00.0" }],
      invalid: [{ mapping: "gpu0", host: "0000:01:00.0" }],
    },
  }),
  usb: field({
    doc:
      "Host USB devices (usb0…), each a resource `mapping` (Mapping.Use on /mapping/usb/<id>) or " +
      "a raw `host` id (vendor:product or bus-port), which PVE lets only root@pam set. A running " +
      "VM takes a change at once when its hotplug has usb, else at its next reboot.",
    docType: "{ mapping?: string; host?: string; usb3?: boolean }[]",
    schema: z.array(usbSchema).max(14, "PVE takes at most 14 devices (usb0 to usb13)"),
    mayBeUnknown: true,
    change: "reboot",
    stored: z.array(z.looseObject({})).optional(),
    configKeys: { format: (list) => keysOf("usb", list, formatUsb), same: sameBy(parseUsb) },
    ownsKeys: /^usb\d+$/,
    hotKeys: USB_HOT,
    readBack: {
      from: "vm",
      read: readList("usb", parseUsb),
      probe: probeList("usb", parseUsb),
    },
    example: {
      valid: [{ mapping: "yubikey", usb3: true }, { host: "1050:0407" }],
      invalid: [{ usb3: true }],
    },
  }),
  virtiofs: field({
    doc:
      "Host directories shared with the guest over virtiofs (virtiofs0…; PVE 8.4+), each a " +
      "directory `mapping` (Mapping.Use on /mapping/dir/<id>). The guest mounts a share by its " +
      "mapping id: `mount -t virtiofs <mapping> /mnt/<mapping>` (docs/guide.md). A running VM " +
      "takes a change at its next reboot.",
    docType:
      '{ mapping: string; cache?: "auto" | "always" | "metadata" | "never"; directIo?: boolean; exposeAcl?: boolean; exposeXattr?: boolean }[]',
    schema: z.array(virtiofsSchema).max(10, "PVE takes at most 10 shares (virtiofs0 to virtiofs9)"),
    mayBeUnknown: true,
    change: "reboot",
    stored: z.array(z.looseObject({})).optional(),
    configKeys: {
      format: (list) => keysOf("virtiofs", list, formatVirtiofs),
      same: sameBy(parseVirtiofs),
    },
    ownsKeys: /^virtiofs\d$/,
    readBack: {
      from: "vm",
      read: readList("virtiofs", parseVirtiofs),
      probe: probeList("virtiofs", parseVirtiofs),
    },
    example: {
      valid: [{ mapping: "datasets", cache: "always", exposeAcl: true }],
      invalid: [{ mapping: "datasets", cache: "sometimes" }],
    },
  }),
} as const;
