/**
 * Host hardware and host directories handed to the VM: PCI devices (`hostpciN`, qemu-server
 * `PVE/QemuServer/PCI.pm` `$hostpci_fmt`), USB devices (`usbN`, `PVE/QemuServer.pm` `$usb_fmt`)
 * and virtiofs shares (`virtiofsN`, `PVE/QemuServer/Virtiofs.pm` `$virtiofs_fmt`): the schemas in
 * the input's terms, and the conversions to and from PVE's property strings.
 */
import { z } from "zod";
import { propertyString } from "./firmware";

/** pve-configid: a resource mapping's id, as Datacenter → Resource Mappings lists it. */
const mappingId = z
  .string()
  .regex(
    /^[a-z][a-z0-9_-]+$/i,
    "must be a resource mapping id (a letter, then letters, digits, - or _), as Datacenter → Resource Mappings lists it",
  );

const PCI_ID = "(?:[a-f0-9]{4,}:)?[a-f0-9]{2}:[a-f0-9]{2}(?:\\.[a-f0-9])?";
const pciHost = z
  .string()
  .regex(
    new RegExp(`^${PCI_ID}(?:;${PCI_ID})*$`),
    'must be a host PCI id such as "0000:01:00.0" (or "01:00" for all its functions), several joined by ";"',
  );
const usbHost = z
  .string()
  .regex(
    /^(?:[0-9A-Fa-f]{4}:[0-9A-Fa-f]{4}|\d+-\d+(?:\.\d+)*)$/,
    'must be a USB vendor:product id such as "1050:0407", or a bus-port path such as "1-2"',
  );

const ONE_OF =
  "needs mapping (a resource mapping id) or host (a raw host id), exactly one of the two";
const oneOf = (device: { mapping?: string | undefined; host?: string | undefined }) =>
  (device.mapping === undefined) !== (device.host === undefined);

export const hostPciSchema = z
  .strictObject({
    mapping: mappingId.optional(),
    host: pciHost.optional(),
    /** On the PCI Express bus; needs the q35 machine. PVE's default: false. */
    pcie: z.boolean().optional(),
    /** The device's ROM visible in the guest's memory map. PVE's default: true. */
    rombar: z.boolean().optional(),
    /** The guest's primary GPU (vfio-vga). PVE's default: false. */
    xVga: z.boolean().optional(),
    /** The mediated device type to create for the VM (a vGPU profile). */
    mdev: z
      .string()
      .regex(/^[^/.:,=]+$/, "must be a mediated device type such as nvidia-63")
      .optional(),
  })
  .refine(oneOf, ONE_OF);
export type HostPci = z.output<typeof hostPciSchema>;

export const usbSchema = z
  .strictObject({
    mapping: mappingId.optional(),
    host: usbHost.optional(),
    /** On the USB 3 (xHCI) controller. PVE's default: false. */
    usb3: z.boolean().optional(),
  })
  .refine(oneOf, ONE_OF);
export type Usb = z.output<typeof usbSchema>;

export const virtiofsSchema = z.strictObject({
  /** The directory mapping's id; the guest mounts the share by this tag. */
  mapping: mappingId,
  cache: z.enum(["auto", "always", "metadata", "never"]).optional(),
  directIo: z.boolean().optional(),
  exposeAcl: z.boolean().optional(),
  exposeXattr: z.boolean().optional(),
});
export type Virtiofs = z.output<typeof virtiofsSchema>;

/** `key`'s option written when set: PVE's booleans as 1 and 0. */
const opt = (key: string, value: string | boolean | undefined): string[] =>
  value === undefined ? [] : [`${key}=${typeof value === "boolean" ? Number(value) : value}`];

const flag = (value: string | undefined): boolean | undefined =>
  value === undefined ? undefined : /^(1|on|yes|true)$/i.test(value);

export const formatHostPci = (d: HostPci): string =>
  [
    ...(d.mapping === undefined ? [`host=${d.host ?? ""}`] : [`mapping=${d.mapping}`]),
    ...opt("pcie", d.pcie),
    ...opt("rombar", d.rombar),
    ...opt("x-vga", d.xVga),
    ...opt("mdev", d.mdev),
  ].join(",");

export const formatUsb = (d: Usb): string =>
  [
    ...(d.mapping === undefined ? [`host=${d.host ?? ""}`] : [`mapping=${d.mapping}`]),
    ...opt("usb3", d.usb3),
  ].join(",");

export const formatVirtiofs = (d: Virtiofs): string =>
  [
    `dirid=${d.mapping}`,
    ...opt("cache", d.cache),
    ...opt("direct-io", d.directIo),
    ...opt("expose-acl", d.exposeAcl),
    ...opt("expose-xattr", d.exposeXattr),
  ].join(",");

/** PVE's value in the input's terms, every option PVE knows with its default filled in. */
export function parseHostPci(value: string | undefined): Required<HostPci> | undefined {
  if (value === undefined) return undefined;
  const p = propertyString(value, "host");
  return {
    mapping: p["mapping"] as string,
    host: p["host"] as string,
    pcie: flag(p["pcie"]) ?? false,
    rombar: flag(p["rombar"]) ?? true,
    xVga: flag(p["x-vga"]) ?? false,
    mdev: p["mdev"] as string,
  };
}

export function parseUsb(value: string | undefined): Required<Usb> | undefined {
  if (value === undefined) return undefined;
  const p = propertyString(value, "host");
  return {
    mapping: p["mapping"] as string,
    host: p["host"] as string,
    usb3: flag(p["usb3"]) ?? false,
  };
}

export function parseVirtiofs(value: string | undefined): Required<Virtiofs> | undefined {
  if (value === undefined) return undefined;
  const p = propertyString(value, "dirid");
  return {
    mapping: p["dirid"] ?? "",
    cache: (p["cache"] ?? "auto") as Virtiofs["cache"] & string,
    directIo: flag(p["direct-io"]) ?? false,
    exposeAcl: flag(p["expose-acl"]) ?? false,
    exposeXattr: flag(p["expose-xattr"]) ?? false,
  };
}

/**
 * What PVE holds in the input's terms, only the options the program sets (an option PVE holds
 * that the input leaves out is not drift); the device's identity (mapping or host) always.
 */
export function asked<T extends object>(now: Required<T>, input: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(now)) {
    const identity = key === "mapping" || key === "host";
    if ((identity && value !== undefined) || (input as Record<string, unknown>)[key] !== undefined)
      out[key] = value;
  }
  return out as T;
}
