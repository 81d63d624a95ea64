/**
 * Every input of a `ProxmoxVm`, each described once. A new input is one entry here plus its
 * tests; `check`, `diff`, the state, `converge`, `read`, the args' docs and docs/inputs.md follow
 * from it (docs/design.md, "One spec per input").
 */
import { z } from "zod";
import { canonical } from "../../inputs/canonical";
import { storageId } from "../../inputs/formats";
import { userDescription } from "../identity";
import { isUnknown, normalizeTags } from "../../inputs/unknown";
import { CloudInitInputSchema } from "../seed/seed-inputs";
import { bootDisk, diskSizeGiB, formatNic, parseNic, parseTags, type Nic } from "../state/vm-facts";
import {
  coresSchema,
  cpuSchema,
  formatCpu,
  formatMemory,
  memorySchema,
  readCpu,
  readMemory,
  sameCpuModel,
} from "./compute";
import { field, sameText } from "./field";
import {
  formatHotplug,
  formatStartup,
  hotplugSchema,
  normalizeHotplug,
  parseHotplug,
  parseStartup,
  poolSchema,
  readFlag,
  startupSchema,
} from "./lifecycle";
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
  sameAgent,
  text,
} from "./firmware";
import {
  diskGiB,
  disksSchema,
  formatDisks,
  readDisks,
  refuseDisks,
  removedDisks,
  shrinkRefusal,
} from "./disks";
import {
  nameserversSchema,
  networkSchema,
  networksSchema,
  nicKey,
  searchDomainsSchema,
  type NicInputs,
} from "./network";

const nodeName = z
  .string()
  .regex(
    /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/,
    "must be a Proxmox node name: letters, digits and inner hyphens, e.g. pve1",
  );

const vmid = z
  .number()
  .int("must be a whole number")
  .min(100, "Proxmox VMIDs start at 100")
  .max(999_999_999, "Proxmox VMIDs end at 999999999");

const dnsName = z
  .string()
  .max(63 * 4)
  .regex(
    /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/,
    "must be a DNS name: dot-separated labels of letters, digits and inner hyphens",
  );

/** PVE's tag syntax; tags are compared after normalisation (lower-case, sorted, unique). */
const tag = z
  .string()
  .regex(
    /^[a-zA-Z0-9_][a-zA-Z0-9_\-+.]*$/,
    "must start with a letter, digit or underscore and contain only letters, digits, _ - + .",
  );

const timeoutsSchema = z.strictObject({
  /** Budget for the clone task, including waiting on a clone already in progress. */
  cloneMs: z
    .number()
    .int()
    .positive()
    .default(10 * 60_000),
  /** Budget for the guest agent to report an address after start. */
  agentMs: z
    .number()
    .int()
    .positive()
    .default(5 * 60_000),
  /** Budget for any other single task (start, stop, config, upload, destroy). */
  taskMs: z
    .number()
    .int()
    .positive()
    .default(2 * 60_000),
});

const vmidRange = z
  .strictObject({ min: vmid, max: vmid })
  .refine((r) => r.max >= r.min, "max must not be below min");

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

const cloneSchema = z.strictObject({ full: z.boolean() });

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
/**
 * A VM-level DNS setting: part of the seed (a changed seed reboots a running VM), not of a NIC,
 * and refused beside an explicit `network`, which carries its own.
 */
function seedDns<S extends z.ZodType>(
  name: "nameservers" | "searchDomains",
  doc: string,
  schema: S,
  example: { readonly valid: unknown; readonly invalid: unknown },
) {
  return field({
    doc,
    docType: "string[]",
    schema,
    mayBeUnknown: false,
    change: "reboot",
    stored: z.array(z.string()).optional(),
    refusedBeside: {
      input: "network",
      reason: `set network.${name}, or move network into networks`,
    },
    // The seed's name carries a hash of its content (the `seedVolid` output): a change is seen there.
    readBack: { from: "input" },
    example,
  });
}

/** The inputs, in the order the docs list them. */
export const FIELDS = {
  node: field({
    doc: "The node the VM is placed on. Changing it replaces the VM.",
    docType: "string",
    schema: nodeName,
    required: true,
    mayBeUnknown: true,
    change: "replace",
    stored: z.string(),
    readBack: { from: "mark" },
    example: { valid: "pve2", invalid: "pve 1" },
  }),
  template: field({
    doc: "The template to clone, by VMID or by name. Changing it replaces the VM.",
    docType: "number | string",
    schema: z.union([vmid, dnsName]),
    required: true,
    mayBeUnknown: true,
    change: "replace",
    stored: z.union([z.string(), z.number()]),
    readBack: { from: "mark" },
    example: { valid: 9001, invalid: 99 },
  }),
  storage: field({
    doc: "Disk storage for the full clone (default: the template's). Changing it replaces the VM.",
    docType: "string",
    schema: storageId,
    mayBeUnknown: true,
    change: "replace",
    stored: z.string().optional(),
    readBack: { from: "mark" },
    example: { valid: "local-lvm", invalid: "9fast" },
  }),
  isoStorage: field({
    doc: "Storage for the cloud-init seed ISO (default `local`). Changing it replaces the VM.",
    docType: "string",
    schema: storageId,
    default: "local",
    mayBeUnknown: true,
    change: "replace",
    stored: z.string(),
    readBack: { from: "mark" },
    example: { valid: "cephfs", invalid: "-iso" },
  }),
  name: field({
    doc: "Pin the VM name (default: derived from the resource name). Replaces delete-first.",
    docType: "string",
    schema: dnsName,
    mayBeUnknown: true,
    change: "replace-delete-first",
    stored: z.string().optional(),
    readBack: { from: "input" },
    example: { valid: "web-1.example", invalid: "web_1" },
  }),
  vmid: field({
    doc: "Pin the VMID (default: allocated from `vmidRange`). Replaces delete-first.",
    docType: "number",
    schema: vmid,
    mayBeUnknown: true,
    change: "replace-delete-first",
    // The state always holds the VMID the VM has, pinned or allocated.
    stored: z.number(),
    readBack: { from: "input" },
    example: { valid: 4321, invalid: 42 },
  }),
  vmidRange: field({
    doc: "Where VMIDs are allocated (default 10000–99999).",
    docType: "{ min: number; max: number }",
    schema: vmidRange,
    default: { min: 10_000, max: 99_999 },
    mayBeUnknown: false,
    change: "setting",
    stored: z.object({ min: z.number(), max: z.number() }),
    readBack: { from: "input" },
    example: { valid: { min: 200, max: 299 }, invalid: { min: 300, max: 200 } },
  }),
  cores: field({
    doc: "Virtual CPU cores, the shorthand of `cpu.cores` (set one of the two). A running VM takes the change at its next reboot.",
    docType: "number",
    schema: coresSchema,
    mayBeUnknown: true,
    change: "reboot",
    stored: z.number().optional(),
    config: { key: "cores", format: (cores) => cores },
    // PVE's default when the key is absent.
    readBack: { from: "vm", read: ({ config }) => Number(config.cores ?? 1) },
    example: { valid: 4, invalid: 0 },
  }),
  memory: field({
    doc:
      "MiB, or `{ sizeMiB, balloonMiB, shares, hugepages }`. A running VM takes a new size at its " +
      "next reboot, unless `hotplug` has `memory` and `cpu.numa` is on; balloon and shares apply at once.",
    docType: "number | MemoryArgs",
    schema: memorySchema,
    mayBeUnknown: true,
    change: "reboot",
    stored: z
      .union([
        z.number(),
        z.looseObject({
          sizeMiB: z.number(),
          balloonMiB: z.number().optional(),
          shares: z.number().optional(),
          hugepages: z.union([z.string(), z.number()]).optional(),
        }),
      ])
      .optional(),
    configKeys: { format: formatMemory },
    hotKeys: { memory: { hotplug: "memory", numa: true }, balloon: "always", shares: "always" },
    readBack: { from: "vm", read: ({ config }, input) => readMemory(config, input) },
    example: {
      valid: { sizeMiB: 4096, balloonMiB: 2048 },
      invalid: { sizeMiB: 2048, balloonMiB: 4096 },
    },
  }),
  diskSize: field({
    doc: "GiB of the boot disk; can only grow.",
    docType: "number",
    schema: diskGiB,
    mayBeUnknown: true,
    change: "hot",
    refuse: (old, now) =>
      typeof old === "number" && now < old ? shrinkRefusal("it", "diskSize", old) : undefined,
    stored: z.number().optional(),
    readBack: {
      from: "vm",
      read: ({ config }) => {
        const disk = bootDisk(config);
        return disk ? diskSizeGiB(String(config[disk])) : undefined;
      },
    },
    example: { valid: 32, invalid: 2.5 },
  }),
  disks: field({
    doc:
      "The VM's disks, the boot disk included (by its slot, e.g. `scsi0`): a disk the VM lacks " +
      "is added, a larger `sizeGiB` grows it, another `storage` moves it; `remove: true` " +
      "detaches it. Instead of `diskSize`, not with it.",
    docType: "DiskArgs[]",
    schema: disksSchema,
    mayBeUnknown: true,
    // A new disk and a grow are hot-plugged (PVE's default hotplug has `disk`); converge
    // reboots for an option change of a disk in use, which PVE keeps pending.
    change: "hot",
    refuse: (old, now) => refuseDisks(old, now),
    // States written before the input existed have none.
    stored: z.array(z.looseObject({ interface: z.string() })).optional(),
    configKeys: { format: formatDisks },
    configRemoves: removedDisks,
    readBack: { from: "vm", read: readDisks },
    example: {
      valid: [
        { interface: "scsi0", sizeGiB: 32, discard: true },
        { interface: "scsi1", storage: "local-lvm", sizeGiB: 100, backup: false },
      ],
      invalid: [{ interface: "ide0", sizeGiB: 8 }],
    },
  }),
  network: field({
    doc: "The VM's NIC (net0) and the address its seed configures; the one-NIC form of `networks`.",
    docType: "NetworkArgs",
    schema: networkSchema,
    default: networkSchema.parse({}),
    mayBeUnknown: false,
    change: "hot",
    stored: networkSchema,
    shorthandOf: "networks",
    config: {
      key: "net0",
      format: (network, seen) => formatNic(network, seen.macs["net0"]),
      // Only what formatNic writes for this form: PVE's own options (firewall=1, queues…) stay.
      same: (current, wanted) => {
        const now = parseNic(text(current));
        const want = parseNic(String(wanted));
        return now !== undefined && want !== undefined && sameNic(now, want);
      },
    },
    readBack: {
      from: "vm",
      read: ({ config }, input) => {
        const net0 = parseNic(config.net0);
        return {
          ...input,
          bridge: net0?.bridge ?? input.bridge,
          ...(net0?.vlan === undefined ? {} : { vlan: net0.vlan }),
          ...(input.mac === undefined ? {} : { mac: net0?.mac ?? input.mac }),
        };
      },
    },
    example: { valid: { bridge: "vmbr1", vlan: 20 }, invalid: { vlan: 5000 } },
  }),
  networks: field({
    doc:
      "The VM's NICs in order (net0, net1…), each with the address its seed configures, matched " +
      "by MAC. NICs beyond the list are removed; a NIC added to a running VM is hot-plugged.",
    docType: "NicArgs[]",
    schema: networksSchema,
    mayBeUnknown: false,
    change: "hot",
    stored: networksSchema.optional(),
    configKeys: {
      format: (nics, seen) =>
        Object.fromEntries(nics.map((nic, i) => [nicKey(i), formatNic(nic, seen.macs[nicKey(i)])])),
      same: (_key, current, wanted) => {
        const now = parseNic(typeof current === "string" ? current : undefined);
        const want = parseNic(String(wanted));
        return (
          now !== undefined && want !== undefined && canonical(asked(now, want)) === canonical(want)
        );
      },
    },
    ownsKeys: /^net\d+$/,
    readBack: {
      from: "vm",
      // A NIC missing on PVE is missing from the list, so `up` adds it again.
      read: ({ config }, input) =>
        input.flatMap((nic, i) => {
          const now = parseNic(config[nicKey(i)] as string | undefined);
          return now === undefined ? [] : [{ ...nic, ...asked(now, nic) } as NicInputs];
        }),
    },
    example: {
      valid: [{ bridge: "vmbr0" }, { bridge: "vmbr1", vlan: 20, mtu: 9000, firewall: true }],
      invalid: [{ bridge: "vmbr0" }, { bridge: "vmbr1", queues: 65 }],
    },
  }),
  nameservers: seedDns(
    "nameservers",
    "DNS servers the seed configures (on the first NIC). With `network`, set them there.",
    nameserversSchema,
    { valid: ["10.0.0.53", "2001:db8::53"], invalid: ["10.0.0"] },
  ),
  searchDomains: seedDns(
    "searchDomains",
    "DNS search domains the seed configures (on the first NIC). With `network`, set them there.",
    searchDomainsSchema,
    { valid: ["example.com"], invalid: ["-bad"] },
  ),
  cloudInit: field({
    doc: "Cloud-init for the VM's NoCloud seed. A running VM reboots onto a changed seed.",
    docType: "CloudInitArgs",
    schema: CloudInitInputSchema,
    mayBeUnknown: false,
    change: "reboot",
    // Secret-bearing, and checked again whenever the seed is built.
    stored: z.unknown().optional(),
    // The seed's name carries a hash of its content (the `seedVolid` output): a changed seed is seen there.
    readBack: { from: "input" },
    example: { valid: { hostname: "web" }, invalid: { hostname: "web_1" } },
  }),
  tags: field({
    doc: "Compared the way PVE stores them: lower-case, sorted, unique.",
    docType: "string[]",
    schema: z.array(tag).max(64),
    mayBeUnknown: true,
    change: "hot",
    // A value that is not a list of tags (absent, or blinded as a secret) is compared as it is.
    normalize: (tags) =>
      Array.isArray(tags) && tags.every((t) => typeof t === "string")
        ? normalizeTags(tags)
        : (tags ?? []),
    stored: z.array(z.string()).optional(),
    config: {
      key: "tags",
      format: (tags) => normalizeTags(tags).join(";"),
      same: (current, wanted) => parseTags(text(current)).join(";") === wanted,
    },
    readBack: { from: "vm", read: ({ config }) => parseTags(config.tags) },
    example: { valid: ["Web", "prod"], invalid: ["-web"] },
  }),
  description: field({
    doc: "The VM's notes in PVE; the provider appends its own mark below them.",
    docType: "string",
    schema: z.string().max(4096, "at most 4096 characters"),
    mayBeUnknown: true,
    change: "hot",
    stored: z.string().optional(),
    readBack: { from: "vm", read: ({ config }) => userDescription(config.description) },
    example: { valid: "web tier", invalid: 42 },
  }),
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
    },
    example: { valid: { fstrimClonedDisks: true }, invalid: { type: "usb" } },
  }),
  clone: field({
    doc: "`{ full: false }` clones linked to the template's disks (its storage must allow it; no `storage`). Default a full copy. Changing it replaces the VM.",
    docType: "{ full: boolean }",
    schema: cloneSchema,
    default: { full: true },
    mayBeUnknown: true,
    change: "replace",
    // States written before the input existed hold full clones.
    stored: cloneSchema.default({ full: true }),
    conflict: (clone, inputs) =>
      !clone.full && inputs["storage"] !== undefined && !isUnknown(inputs["storage"])
        ? "a linked clone (clone.full: false) keeps its disks on the template's storage, and PVE " +
          "refuses storage for it: remove storage, or set clone.full: true for a full copy there."
        : undefined,
    readBack: { from: "mark" },
    example: { valid: { full: false }, invalid: { full: "no" } },
  }),
  started: field({
    doc: "Whether the VM runs (default true).",
    docType: "boolean",
    schema: z.boolean(),
    default: true,
    mayBeUnknown: true,
    change: "hot",
    stored: z.boolean(),
    readBack: { from: "vm", read: ({ running }) => running },
    example: { valid: false, invalid: "yes" },
  }),
  waitForIp: field({
    doc: "Wait for the guest agent to report an IPv4 address (default true).",
    docType: "boolean",
    schema: z.boolean(),
    default: true,
    mayBeUnknown: false,
    change: "setting",
    stored: z.boolean(),
    readBack: { from: "input" },
    example: { valid: false, invalid: 1 },
  }),
  rebootPolicy: field({
    doc: "Whether an update may reboot a running VM to apply a change (default `allow`).",
    docType: '"allow" | "never"',
    schema: z.enum(["allow", "never"]),
    default: "allow",
    mayBeUnknown: false,
    change: "setting",
    stored: z.enum(["allow", "never"]),
    readBack: { from: "input" },
    example: { valid: "never", invalid: "sometimes" },
  }),
  nodeDrift: field({
    doc:
      "A VM found on another node than `node` (an HA move, a manual migration) is drift. With " +
      "`moveBack` (default) `up` migrates it back, live when it runs; with `accept` the move is " +
      "accepted and not reported. Never a replacement.",
    docType: '"moveBack" | "accept"',
    schema: z.enum(["moveBack", "accept"]),
    default: "moveBack",
    mayBeUnknown: false,
    change: "setting",
    // States written before the input existed have none.
    stored: z.enum(["moveBack", "accept"]).default("moveBack"),
    readBack: { from: "input" },
    example: { valid: "accept", invalid: "ignore" },
  }),
  adopt: field({
    doc: "Take over a complete VM that carries this resource's identity but is unknown to the stack.",
    docType: "boolean",
    schema: z.boolean(),
    default: false,
    mayBeUnknown: false,
    change: "setting",
    stored: z.boolean(),
    readBack: { from: "input" },
    example: { valid: true, invalid: "true" },
  }),
  timeouts: field({
    doc: "Budgets in milliseconds: the clone task, the guest agent's address, any other task.",
    docType: "{ cloneMs?: number; agentMs?: number; taskMs?: number }",
    schema: timeoutsSchema,
    default: timeoutsSchema.parse({}),
    mayBeUnknown: false,
    change: "setting",
    stored: timeoutsSchema,
    readBack: { from: "input" },
    example: { valid: { agentMs: 60_000 }, invalid: { agentMs: -1 } },
  }),
  cpu: field({
    doc:
      "`{ type, flags, sockets, cores, vcpus, numa, units, limit }`; set `cores` here or as the " +
      "`cores` shorthand, not both. A running VM takes a change at its next reboot, except `vcpus` " +
      "(with `cpu` in `hotplug`), `units` and `limit`, which apply at once.",
    docType: "CpuArgs",
    schema: cpuSchema,
    mayBeUnknown: true,
    change: "reboot",
    excludes: ["cores"],
    stored: z.looseObject({}).optional(),
    configKeys: {
      format: formatCpu,
      same: (key, current, wanted) =>
        key === "cpu" ? sameCpuModel(current, wanted) : sameText(current, wanted),
    },
    hotKeys: { vcpus: { hotplug: "cpu" }, cpuunits: "always", cpulimit: "always" },
    readBack: { from: "vm", read: ({ config }, input) => readCpu(config, input) },
    example: {
      valid: { type: "host", sockets: 1, cores: 4, vcpus: 2 },
      invalid: { cores: 2, sockets: 1, vcpus: 4 },
    },
  }),
  hotplug: field({
    doc:
      "The features PVE hot-plugs into a running VM: `network`, `disk`, `cpu`, `memory`, `usb`, " +
      "`cloudinit`; `[]` for none. Unset, the VM keeps its template's (PVE's default `network,disk,usb`).",
    docType: "string[]",
    schema: hotplugSchema,
    mayBeUnknown: true,
    change: "hot",
    normalize: (features) =>
      Array.isArray(features) && features.every((f) => typeof f === "string")
        ? normalizeHotplug(features)
        : features,
    stored: z.array(z.string()).optional(),
    config: {
      key: "hotplug",
      format: formatHotplug,
      same: (current, wanted) => parseHotplug(current).join() === parseHotplug(wanted).join(),
    },
    readBack: {
      from: "vm",
      read: ({ config }) => parseHotplug(config["hotplug"]) as z.output<typeof hotplugSchema>,
    },
    example: { valid: ["network", "disk", "cpu"], invalid: ["nics"] },
  }),
  onBoot: field({
    doc: "Whether PVE starts the VM when its node boots.",
    docType: "boolean",
    schema: z.boolean(),
    mayBeUnknown: true,
    change: "hot",
    stored: z.boolean().optional(),
    config: { key: "onboot", format: (on) => (on ? 1 : 0) },
    readBack: { from: "vm", read: ({ config }) => readFlag(config, "onboot") },
    example: { valid: true, invalid: "yes" },
  }),
  startup: field({
    doc: "`{ order, up, down }`: the start position at node boot and the seconds to wait after start and for shutdown.",
    docType: "{ order?: number; up?: number; down?: number }",
    schema: startupSchema,
    mayBeUnknown: true,
    change: "hot",
    stored: z.looseObject({}).optional(),
    config: {
      key: "startup",
      format: formatStartup,
      same: (current, wanted) =>
        formatStartup(parseStartup(current) ?? {}) === formatStartup(parseStartup(wanted) ?? {}),
    },
    readBack: { from: "vm", read: ({ config }) => parseStartup(config["startup"]) },
    example: { valid: { order: 2, up: 30 }, invalid: { order: -1 } },
  }),
  protection: field({
    doc: "Whether PVE refuses to remove the VM or its disks. `pulumi destroy` turns it off first.",
    docType: "boolean",
    schema: z.boolean(),
    mayBeUnknown: true,
    change: "hot",
    stored: z.boolean().optional(),
    config: { key: "protection", format: (on) => (on ? 1 : 0) },
    readBack: { from: "vm", read: ({ config }) => readFlag(config, "protection") },
    example: { valid: true, invalid: 1 },
  }),
  pool: field({
    doc:
      "The resource pool the VM belongs to; the pool must exist. The clone joins it, a change " +
      "moves the VM to the new pool, and removing the input takes the VM out of it.",
    docType: "string",
    schema: poolSchema,
    mayBeUnknown: true,
    // Membership lives in user.cfg, outside the VM's config: written at once, running or not.
    change: "hot",
    undoneWhenRemoved: true,
    stored: z.string().optional(),
    readBack: { from: "vm", read: ({ pool }) => pool },
    example: { valid: "web-tier", invalid: "web tier" },
  }),
} as const;

export type Fields = typeof FIELDS;
export type FieldName = keyof Fields;

export const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];

function sameNic(a: Nic, b: Nic): boolean {
  return (
    a?.model === b?.model && a?.mac === b?.mac && a?.bridge === b?.bridge && a?.vlan === b?.vlan
  );
}

/**
 * What PVE's NIC says about what the program asked for: model, bridge and VLAN always (no tag is a
 * setting too), the MAC when one is asked for, PVE's other options only when asked for.
 */
function asked(now: Nic, want: Nic | NicInputs): Nic {
  const only = <K extends "mac" | "firewall" | "mtu" | "rate" | "queues">(key: K) =>
    want[key] === undefined ? {} : { [key]: key === "firewall" ? (now[key] ?? false) : now[key] };
  return {
    model: now.model,
    bridge: now.bridge,
    vlan: now.vlan,
    ...only("mac"),
    ...only("firewall"),
    ...only("mtu"),
    ...only("rate"),
    ...only("queues"),
  };
}
