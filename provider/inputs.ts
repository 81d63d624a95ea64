/**
 * The public inputs of a ProxmoxVm, as zod schemas: `check` parses them before any API call and
 * turns every problem into a failure that names the property and says what is allowed.
 *
 * During `pulumi preview` an input that is not known yet arrives as Pulumi's unknown sentinel;
 * {@link UNKNOWN} values are accepted here and treated by `diff` as "may change".
 */
import { z } from "zod";
import {
  ipAddress,
  ipv4Address,
  ipv4Cidr,
  ipv6Address,
  ipv6Cidr,
  macAddress,
  searchDomain,
} from "./formats";
import { CloudInitInputSchema } from "./seed/inputs";

/** `pulumi.runtime.unknownValue`, as the dynamic-provider host passes it to check and diff. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export const isUnknown = (value: unknown): boolean => value === UNKNOWN;

/** Whether a value is, or holds anywhere inside it, an unknown. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

const orUnknown = <T extends z.ZodType>(schema: T) => z.union([z.literal(UNKNOWN), schema]);

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

const ipv4Config = z.union(
  [z.literal("dhcp"), z.strictObject({ address: ipv4Cidr, gateway: ipv4Address.optional() })],
  { error: 'must be "dhcp" or { address: "10.0.0.5/24", gateway: "10.0.0.1" }' },
);

const ipv6Config = z.union(
  [
    z.literal("dhcp"),
    z.literal("auto"),
    z.strictObject({ address: ipv6Cidr, gateway: ipv6Address.optional() }),
  ],
  { error: 'must be "dhcp", "auto" or { address: "2001:db8::10/64", gateway: "2001:db8::1" }' },
);

/** A whole number with a unit, whose type error says what to write, e.g. `memory: "lots"`. */
const wholeNumber = (what: string) =>
  z
    .number({ error: (issue) => `must be ${what}, got ${kindOf(issue.input)}` })
    .int(`must be a whole ${what.replace(/^an? /, "")}`);

/** How a value's type is named in a message: "a string", "an array", "null". */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

export const networkSchema = z.strictObject({
  bridge: z
    .string()
    .regex(/^[a-zA-Z][a-zA-Z0-9_.-]*$/, "must be a bridge name, e.g. vmbr0")
    .default("vmbr0"),
  vlan: z
    .number()
    .int()
    .min(1, "VLAN tags are 1 to 4094")
    .max(4094, "VLAN tags are 1 to 4094")
    .optional(),
  mac: macAddress.optional(),
  model: z.enum(["virtio", "e1000", "rtl8139", "vmxnet3"]).default("virtio"),
  ipv4: ipv4Config.default("dhcp"),
  ipv6: ipv6Config.optional(),
  nameservers: z.array(ipAddress).optional(),
  searchDomains: z.array(searchDomain).optional(),
});

export const timeoutsSchema = z.strictObject({
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

/** What the resource class adds on its own: the engine never tells a dynamic provider the URN. */
export const identityInputSchema = z.strictObject({
  project: z.string().min(1),
  stack: z.string().min(1),
  name: z.string().min(1),
});

export const vmInputsSchema = z.strictObject({
  /** Added by the dynamic-resource SDK to every input set; not ours to validate. */
  __provider: z.unknown().optional(),
  identity: identityInputSchema,
  node: orUnknown(nodeName),
  template: orUnknown(z.union([vmid, dnsName])),
  storage: orUnknown(storageId).optional(),
  isoStorage: orUnknown(storageId).default("local"),
  name: orUnknown(dnsName).optional(),
  vmid: orUnknown(vmid).optional(),
  vmidRange: z
    .strictObject({ min: vmid, max: vmid })
    .refine((r) => r.max >= r.min, "max must not be below min")
    .default({ min: 10_000, max: 99_999 }),
  cores: orUnknown(
    wholeNumber("a number of cores, e.g. 2").min(1, "at least 1 core").max(512, "at most 512"),
  ).optional(),
  memory: orUnknown(
    wholeNumber("a number of MiB, e.g. 2048")
      .min(16, "memory is in MiB, at least 16")
      .max(16 * 1024 * 1024, "memory is in MiB, at most 16777216"),
  ).optional(),
  diskSize: orUnknown(
    wholeNumber("a number of GiB, e.g. 20")
      .min(1, "diskSize is in GiB, at least 1")
      .max(1024 * 1024, "diskSize is in GiB, at most 1048576"),
  ).optional(),
  network: networkSchema.default(networkSchema.parse({})),
  cloudInit: CloudInitInputSchema.optional(),
  tags: orUnknown(z.array(tag).max(64)).optional(),
  description: orUnknown(z.string().max(4096, "at most 4096 characters")).optional(),
  started: orUnknown(z.boolean()).default(true),
  waitForIp: z.boolean().default(true),
  rebootPolicy: z.enum(["allow", "never"]).default("allow"),
  /** A VM found on another node (HA, a manual migration): move it back, or accept the move. */
  nodeDrift: z.enum(["moveBack", "accept"]).default("moveBack"),
  adopt: z.boolean().default(false),
  timeouts: timeoutsSchema.default(timeoutsSchema.parse({})),
});

export type VmInputs = z.infer<typeof vmInputsSchema>;
export type NetworkInputs = z.infer<typeof networkSchema>;

/** Normalises tags the way PVE stores them: lower-case, de-duplicated, sorted. */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.toLowerCase()))].sort();
}
