/** The VM's firmware and machine: BIOS, EFI and TPM disks, machine type, devices, boot order. */
import { z } from "zod";
import { canonical } from "../../inputs/canonical";
import { storageId } from "../../inputs/formats";
import { field } from "./field";
import {
  formatAgent,
  formatBootOrder,
  formatEfiDisk,
  formatTpm,
  parseAgent,
  parseBootOrder,
  parseEfiDisk,
  parseMachine,
  parseTpm,
  parseVga,
  propertyString,
  sameAgent,
  text,
} from "./firmware";

const scsiController = z.enum([
  "lsi",
  "lsi53c810",
  "virtio-scsi-pci",
  "virtio-scsi-single",
  "megasas",
  "pvscsi",
]);

/** PVE's display types; `serialN` puts the console on that serial port. */
const display = z.enum([
  "cirrus",
  "none",
  "qxl",
  "qxl2",
  "qxl3",
  "qxl4",
  "serial0",
  "serial1",
  "serial2",
  "serial3",
  "std",
  "virtio",
  "virtio-gl",
  "vmware",
]);

/** PVE's machine types: `pc` (i440fx) or `q35`, optionally pinned to a QEMU version. */
const machineType = z
  .string()
  .regex(
    /^(pc|q35|pc(-i440fx)?-\d+(\.\d+)+(\+pve\d+)?|pc-q35-\d+(\.\d+)+(\+pve\d+)?)$/,
    "must be a PVE machine type: q35, pc (i440fx), or one pinned to a QEMU version such as pc-q35-8.1 or pc-i440fx-8.1",
  );

/** A boot device: a disk, a NIC or a passed-through device, as PVE's config names it. */
const bootDevice = z
  .string()
  .regex(
    /^(ide|sata|scsi|virtio|net|hostpci|usb)\d{1,2}$/,
    "must be a device of the VM, e.g. scsi0 or net0",
  );

const efiDiskSchema = z.strictObject({
  storage: storageId,
  /** Microsoft's and the distribution's Secure Boot keys enrolled (PVE's `pre-enrolled-keys`). */
  preEnrolledKeys: z.boolean().default(true),
  /** `4m` (default) is the size Secure Boot needs; `2m` is PVE's legacy default. */
  type: z.enum(["2m", "4m"]).default("4m"),
});

const tpmSchema = z.strictObject({
  storage: storageId,
  version: z.enum(["v2.0", "v1.2"]).default("v2.0"),
});

const agentSchema = z.strictObject({
  fstrimClonedDisks: z.boolean().optional(),
  type: z.enum(["virtio", "isa"]).optional(),
});

/** Whether a volume PVE allocated says what the `storage:1,…` request asked for. */
const sameVolume =
  (parse: (value: string | undefined) => unknown) => (current: unknown, wanted: string | number) =>
    canonical(parse(text(current))) === canonical(parse(String(wanted)));

/**
 * A disk created on the VM cannot be changed in place: PVE allocates a new volume and keeps the
 * old one as an unused disk, with the EFI variables or TPM state left behind on it.
 */
const keptOnceCreated =
  (what: string) =>
  (old: unknown, now: unknown): string | undefined =>
    old !== undefined && old !== null && canonical(old) !== canonical(now)
      ? `${what} cannot be changed once created: PVE would allocate a new volume and leave the ` +
        `old one, with its state, as an unused disk. Keep ${JSON.stringify(old)}, or replace the VM.`
      : undefined;
/** Firmware and machine. */
export const FIRMWARE_FIELDS = {
  bios: field({
    doc: "Firmware: `seabios` or `ovmf` (UEFI, which needs `efiDisk`). A running VM takes it at its next reboot.",
    docType: '"seabios" | "ovmf"',
    schema: z.enum(["seabios", "ovmf"]),
    mayBeUnknown: true,
    change: "reboot",
    stored: z.enum(["seabios", "ovmf"]).optional(),
    config: { key: "bios", format: (bios) => bios },
    conflict: (bios, inputs) =>
      bios === "ovmf" && inputs["efiDisk"] === undefined
        ? 'bios "ovmf" needs an EFI disk for its variables: set efiDisk, e.g. { storage: "local-lvm" }.'
        : undefined,
    // PVE's default when the key is absent.
    readBack: { from: "vm", read: ({ config }) => (config.bios === "ovmf" ? "ovmf" : "seabios") },
    example: { valid: "seabios", invalid: "uefi" },
  }),
  efiDisk: field({
    doc: "The EFI vars disk (efidisk0) for `bios: ovmf`. Added at the next reboot; cannot be changed once created.",
    docType: '{ storage: string; preEnrolledKeys?: boolean; type?: "2m" | "4m" }',
    schema: efiDiskSchema,
    mayBeUnknown: true,
    change: "reboot",
    refuse: keptOnceCreated("efiDisk"),
    stored: efiDiskSchema.optional(),
    config: {
      key: "efidisk0",
      format: formatEfiDisk,
      same: sameVolume(parseEfiDisk),
    },
    readBack: { from: "vm", read: ({ config }) => parseEfiDisk(text(config["efidisk0"])) },
    example: { valid: { storage: "local-lvm" }, invalid: { storage: "local-lvm", type: "8m" } },
  }),
  tpm: field({
    doc: "A TPM state disk (tpmstate0), v2.0 by default. Added at the next reboot; cannot be changed once created.",
    docType: '{ storage: string; version?: "v2.0" | "v1.2" }',
    schema: tpmSchema,
    mayBeUnknown: true,
    change: "reboot",
    refuse: keptOnceCreated("tpm"),
    stored: tpmSchema.optional(),
    config: {
      key: "tpmstate0",
      format: formatTpm,
      same: sameVolume(parseTpm),
    },
    readBack: { from: "vm", read: ({ config }) => parseTpm(text(config["tpmstate0"])) },
    example: { valid: { storage: "local-lvm" }, invalid: { storage: "local-lvm", version: "2" } },
  }),
  machine: field({
    doc: "Machine type: `q35` or `pc` (i440fx), optionally pinned, e.g. `pc-q35-8.1`. A running VM takes it at its next reboot.",
    docType: "string",
    schema: machineType,
    mayBeUnknown: true,
    change: "reboot",
    stored: z.string().optional(),
    config: {
      key: "machine",
      format: (machine) => machine,
      same: (current, wanted) => parseMachine(text(current)) === wanted,
    },
    readBack: { from: "vm", read: ({ config }) => parseMachine(text(config["machine"])) },
    example: { valid: "pc-q35-8.1", invalid: "i440fx" },
  }),
  scsihw: field({
    doc: "The SCSI controller, e.g. `virtio-scsi-single`. A running VM takes it at its next reboot.",
    docType: "string",
    schema: scsiController,
    mayBeUnknown: true,
    change: "reboot",
    stored: z.string().optional(),
    config: { key: "scsihw", format: (scsihw) => scsihw },
    // PVE's default when the key is absent; a value this release does not know is drift as it is.
    readBack: {
      from: "vm",
      read: ({ config }) => (text(config["scsihw"]) ?? "lsi") as z.output<typeof scsiController>,
    },
    example: { valid: "virtio-scsi-single", invalid: "virtio" },
  }),
  vga: field({
    doc: "The display, e.g. `std`, `virtio`, or `serial0` for cloud images. A running VM takes it at its next reboot.",
    docType: "string",
    schema: display,
    mayBeUnknown: true,
    change: "reboot",
    stored: z.string().optional(),
    config: {
      key: "vga",
      format: (vga) => vga,
      same: (current, wanted) => parseVga(text(current)) === wanted,
    },
    readBack: {
      from: "vm",
      read: ({ config }) => parseVga(text(config["vga"])) as z.output<typeof display>,
    },
    example: { valid: "serial0", invalid: "vesa" },
  }),
  serial: field({
    doc: "The first serial port (serial0): `socket`, which cloud images log to, or a host device such as `/dev/ttyS0`.",
    docType: "string",
    schema: z
      .string()
      .regex(/^(socket|\/dev\/.+)$/, 'must be "socket" or a host device path such as /dev/ttyS0'),
    mayBeUnknown: true,
    change: "reboot",
    stored: z.string().optional(),
    config: { key: "serial0", format: (serial) => serial },
    readBack: { from: "vm", read: ({ config }) => text(config["serial0"]) },
    example: { valid: "socket", invalid: "ttyS0" },
  }),
  boot: field({
    doc: 'Boot order, e.g. `["scsi0", "net0"]`. A running VM takes it at its next reboot.',
    docType: "string[]",
    schema: z.array(bootDevice).min(1, "must name at least one device"),
    mayBeUnknown: true,
    change: "reboot",
    stored: z.array(z.string()).optional(),
    config: {
      key: "boot",
      format: formatBootOrder,
      same: (current, wanted) => formatBootOrder(parseBootOrder(text(current))) === wanted,
    },
    readBack: { from: "vm", read: ({ config }) => parseBootOrder(text(config.boot)) },
    example: { valid: ["scsi0", "net0"], invalid: ["disk0"] },
  }),
  agent: field({
    doc: "Guest agent options; the agent itself is always on, since the VM's addresses are read through it. A running VM takes a change at its next reboot.",
    docType: '{ fstrimClonedDisks?: boolean; type?: "virtio" | "isa" }',
    schema: agentSchema,
    default: {},
    mayBeUnknown: false,
    change: "reboot",
    // States written before the input existed have none: the agent was on, with PVE's defaults.
    stored: agentSchema.default({}),
    config: {
      key: "agent",
      format: formatAgent,
      same: (current, wanted) => sameAgent(text(current), String(wanted)),
    },
    readBack: {
      from: "vm",
      read: ({ config }, input) => {
        const now = parseAgent(text(config.agent));
        return {
          ...(input.fstrimClonedDisks === undefined
            ? {}
            : { fstrimClonedDisks: now.fstrimClonedDisks }),
          ...(input.type === undefined ? {} : { type: now.type }),
        };
      },
      // The options the VM's agent value writes out.
      probe: ({ config }) => {
        if (config.agent === undefined) return undefined;
        const parts = propertyString(text(config.agent), "enabled");
        return {
          ...(parts["fstrim_cloned_disks"] === undefined ? {} : { fstrimClonedDisks: false }),
          ...(parts["type"] === undefined ? {} : { type: "virtio" as const }),
        };
      },
    },
    example: { valid: { fstrimClonedDisks: true }, invalid: { type: "usb" } },
  }),
} as const;
