/**
 * The inputs of a `VmSnapshot`, checked once here: the VM (its VMID and node), the snapshot's
 * name (set, or derived from the resource's name by PVE's rules), its description and whether it
 * saves the RAM.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { CheckFailure } from "../inputs/check-failure";
import { containsUnknown } from "../inputs/unknown";
import { failuresOfIssues } from "../vm/operations/check";
import { VM_SNAPSHOT_RESOURCE } from "../glue/resource-types";

/**
 * pve-common `PVE/JSONSchema.pm`: `pve-snapshot-name` is a `pve-configid` (`$CONFIGID_RE`: a
 * letter, then letters, digits, `_` or `-`; two characters at least) of at most 40 characters.
 */
const SNAPSHOT_NAME = /^[a-z][a-z0-9_-]+$/i;
const SNAPSHOT_NAME_MAX = 40;
/** qemu-server `PVE/API2/Qemu.pm` `snapshot`: names PVE keeps for itself. */
const RESERVED = /^(current|pending)$/i;

const nameSchema = z
  .string()
  .max(SNAPSHOT_NAME_MAX, `is at most ${SNAPSHOT_NAME_MAX} characters for PVE`)
  .regex(SNAPSHOT_NAME, "must start with a letter and hold only letters, digits, _ and - (PVE)")
  .refine((name) => !RESERVED.test(name), "is a name PVE reserves (current, pending)");

const inputsSchema = z.strictObject({
  __provider: z.unknown().optional(),
  /** The resource's name, which the snapshot's name derives from when `name` is not set. */
  resourceName: z.string().min(1),
  vmid: z.number().int().min(100),
  node: z.string().min(1),
  name: nameSchema.optional(),
  description: z.string().default(""),
  includeRam: z.boolean().default(false),
});

export type SnapshotInputs = z.output<typeof inputsSchema>;

/**
 * A PVE snapshot name for a resource name: characters PVE refuses become `-`, a name that does
 * not start with a letter (or is reserved, or too short) gets an `s-` prefix, and one longer than
 * 40 keeps 31 characters and a hash of the whole, so two long names stay apart.
 */
export function snapshotNameFor(resourceName: string): string {
  let name = resourceName.replace(/[^a-z0-9_-]+/gi, "-");
  if (!/^[a-z]/i.test(name) || RESERVED.test(name) || name.length < 2) name = `s-${name}`;
  if (name.length <= SNAPSHOT_NAME_MAX) return name;
  const hash = createHash("sha256").update(resourceName).digest("hex").slice(0, 8);
  return `${name.slice(0, 31)}-${hash}`;
}

/** The name PVE knows the snapshot by. */
export function snapshotNameOf(inputs: Pick<SnapshotInputs, "name" | "resourceName">): string {
  return inputs.name ?? snapshotNameFor(inputs.resourceName);
}

export function checkSnapshot(news: Readonly<Record<string, unknown>>): {
  inputs: Record<string, unknown>;
  failures: CheckFailure[];
} {
  const parsed = inputsSchema.safeParse(news);
  if (!parsed.success) {
    return {
      inputs: { ...news },
      failures: failuresOfIssues(parsed.error, news, VM_SNAPSHOT_RESOURCE),
    };
  }
  return {
    inputs: containsUnknown(news) ? { ...news } : { ...news, ...parsed.data },
    failures: [],
  };
}

/** Inputs that passed check, with their defaults (create and update run only on those). */
export function resolvedSnapshot(news: Readonly<Record<string, unknown>>): SnapshotInputs {
  return inputsSchema.parse(news);
}
