/**
 * Every input of a `ProxmoxVm`, each described once. A new input is one entry here plus its
 * tests; `check`, `diff`, the state, `converge`, `read`, the args' docs and docs/inputs.md follow
 * from it (docs/design.md, "One spec per input").
 */
import { z } from "zod";
import { userDescription } from "../identity";
import { kindOf, normalizeTags } from "../inputs";
import { CloudInitInputSchema } from "../seed/inputs";
import { canonical } from "../canonical";
import { bootDisk, diskSizeGiB, formatNic, parseNic, parseTags, type Nic } from "../state/vm-facts";
import { field } from "./field";
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

const storageId = z
  .string()
  .regex(/^[a-zA-Z][a-zA-Z0-9\-_.]*$/, "must be a Proxmox storage id, e.g. local-lvm");

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

/** A whole number with a unit, whose type error says what to write, e.g. `memory: "lots"`. */
const wholeNumber = (what: string) =>
  z
    .number({ error: (issue) => `must be ${what}, got ${kindOf(issue.input)}` })
    .int(`must be a whole ${what.replace(/^an? /, "")}`);

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
    excludes: { input: "network", reason: `set network.${name}, or move network into networks` },
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
    doc: "Virtual CPU cores. A running VM takes the change at its next reboot.",
    docType: "number",
    schema: wholeNumber("a number of cores, e.g. 2")
      .min(1, "at least 1 core")
      .max(512, "at most 512"),
    mayBeUnknown: true,
    change: "reboot",
    stored: z.number().optional(),
    config: { key: "cores", format: (cores) => cores },
    // PVE's default when the key is absent.
    readBack: { from: "vm", read: ({ config }) => Number(config.cores ?? 1) },
    example: { valid: 4, invalid: 0 },
  }),
  memory: field({
    doc: "MiB. A running VM takes the change at its next reboot.",
    docType: "number",
    schema: wholeNumber("a number of MiB, e.g. 2048")
      .min(16, "memory is in MiB, at least 16")
      .max(16 * 1024 * 1024, "memory is in MiB, at most 16777216"),
    mayBeUnknown: true,
    change: "reboot",
    stored: z.number().optional(),
    config: { key: "memory", format: (memory) => memory },
    // PVE's default when the key is absent.
    readBack: { from: "vm", read: ({ config }) => Number(config.memory ?? 512) },
    example: { valid: 2048, invalid: "lots" },
  }),
  diskSize: field({
    doc: "GiB of the boot disk; can only grow.",
    docType: "number",
    schema: wholeNumber("a number of GiB, e.g. 20")
      .min(1, "diskSize is in GiB, at least 1")
      .max(1024 * 1024, "diskSize is in GiB, at most 1048576"),
    mayBeUnknown: true,
    change: "hot",
    refuse: (old, now) =>
      typeof old === "number" && now < old
        ? `Proxmox cannot shrink disks: it was ${old} GiB, so diskSize must be ${old} or more (or replace the VM).`
        : undefined,
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
        const now = parseNic(typeof current === "string" ? current : undefined);
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
      same: (current, wanted) =>
        parseTags(typeof current === "string" ? current : undefined).join(";") === wanted,
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
