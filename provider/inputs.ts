/**
 * The public inputs of a ProxmoxVm, as zod schemas: `check` parses them before any API call and
 * turns every problem into a failure that names the property and says what is allowed.
 *
 * During `pulumi preview` an input that is not known yet arrives as Pulumi's unknown sentinel;
 * {@link UNKNOWN} values are accepted here and treated by `diff` as "may change".
 */
import { z } from "zod";

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

const mac = z
  .string()
  .regex(/^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$/, "must be a MAC address like BC:24:11:00:00:01");

const cidr4 = z
  .string()
  .regex(
    /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/,
    "must be an IPv4 address with prefix, e.g. 10.0.0.5/24",
  );

const ipv4Config = z.union([
  z.literal("dhcp"),
  z.strictObject({
    address: cidr4,
    gateway: z
      .string()
      .regex(/^(\d{1,3}\.){3}\d{1,3}$/, "must be an IPv4 address")
      .optional(),
  }),
]);

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
  mac: mac.optional(),
  model: z.enum(["virtio", "e1000", "rtl8139", "vmxnet3"]).default("virtio"),
  ipv4: ipv4Config.default("dhcp"),
  ipv6: z
    .union([
      z.literal("dhcp"),
      z.literal("auto"),
      z.strictObject({ address: z.string(), gateway: z.string().optional() }),
    ])
    .optional(),
  nameservers: z.array(z.string()).optional(),
  searchDomains: z.array(z.string()).optional(),
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
  cores: orUnknown(z.number().int().min(1, "at least 1 core").max(512)).optional(),
  memory: orUnknown(
    z
      .number()
      .int()
      .min(16, "memory is in MiB, at least 16")
      .max(16 * 1024 * 1024),
  ).optional(),
  diskSize: orUnknown(
    z
      .number()
      .int()
      .min(1, "diskSize is in GiB, at least 1")
      .max(1024 * 1024),
  ).optional(),
  network: networkSchema.default(networkSchema.parse({})),
  cloudInit: z.unknown().optional(),
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
