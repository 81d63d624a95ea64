/**
 * A VM's identity: who owns it (project, stack, resource name) and where it was placed (node,
 * template, disk storage, ISO storage). Everything that finds "our" VM keys on it:
 *
 * - the VM name and the first VMID to probe are derived from it, so a retried create after a
 *   crash lands on the same VM;
 * - a change of placement changes it, so a create-before-delete replacement never finds, and
 *   never adopts, the VM it replaces (docs/design.md, "Identity and placement").
 *
 * The mark records the identity and the creation phase in the VM's description, written in the
 * clone call itself so that a VM exists with it from the first moment it has a config.
 */
import { createHash } from "node:crypto";
import { z } from "zod";

export interface Placement {
  readonly node: string;
  readonly template: string | number;
  readonly storage?: string | undefined;
  readonly isoStorage: string;
  /** `{ full: false }` for a linked clone; a full clone, the default, may leave it out. */
  readonly clone?: { readonly full: boolean } | undefined;
}

/** Whether the placement asks for a linked clone (a full copy is the default). */
export const isLinked = (placement: Pick<Placement, "clone">): boolean =>
  placement.clone?.full === false;

export interface Owner {
  readonly project: string;
  readonly stack: string;
  readonly name: string;
}

/**
 * 16 hex digits of sha256 over the owner and the placement. A linked clone adds a part; a full
 * clone adds none, so a VM created before clone modes existed keeps its identity.
 */
export function identityOf(owner: Owner, placement: Placement): string {
  const canonical = JSON.stringify([
    owner.project,
    owner.stack,
    owner.name,
    placement.node,
    String(placement.template),
    placement.storage ?? "",
    placement.isoStorage,
    ...(isLinked(placement) ? ["linked"] : []),
  ]);
  return createHash("sha256").update(canonical).digest("hex").slice(0, 16);
}

/** The VM name: the resource name made DNS-safe, plus a short identity suffix. */
export function vmNameFor(owner: Owner, identity: string): string {
  const base =
    owner.name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "vm";
  return `${base}-${identity.slice(0, 6)}`;
}

/** The VMIDs a create may use, in probing order: from the identity's slot, wrapping around. */
export function probeOrder(
  identity: string,
  range: { min: number; max: number },
  limit: number,
): number[] {
  const size = range.max - range.min + 1;
  const start = Number(BigInt(`0x${identity}`) % BigInt(size));
  const count = Math.min(size, limit);
  return Array.from({ length: count }, (_, i) => range.min + ((start + i) % size));
}

/** A VM's creation phase: `creating` until every step of its create has run. */
export const phaseSchema = z.enum(["creating", "complete"]);
export type Phase = z.infer<typeof phaseSchema>;

const markSchema = z.object({
  v: z.literal(1),
  id: z.string().regex(/^[0-9a-f]{16}$/),
  phase: phaseSchema,
  node: z.string(),
  template: z.union([z.string(), z.number()]),
  storage: z.string().optional(),
  isoStorage: z.string(),
  clone: z.object({ full: z.boolean() }).optional(),
});

export type Mark = z.infer<typeof markSchema>;

const MARK_PREFIX = "pulumi-proxmox:";
const MARK_LINE = /^pulumi-proxmox:(\{.*\})\s*$/m;

export function markFor(identity: string, placement: Placement, phase: Phase): Mark {
  return {
    v: 1,
    id: identity,
    phase,
    node: placement.node,
    template: placement.template,
    ...(placement.storage === undefined ? {} : { storage: placement.storage }),
    isoStorage: placement.isoStorage,
    ...(isLinked(placement) ? { clone: { full: false } } : {}),
  };
}

/**
 * The description PVE stores: the user's text, then the mark on a line of its own. Any mark
 * object (a VM's, a template's) is written the same way, so one reader finds every kind.
 */
export function describe(userDescription: string | undefined, mark: object): string {
  const line = `${MARK_PREFIX}${JSON.stringify(mark)}`;
  return userDescription ? `${userDescription}\n\n${line}` : line;
}

/** Reads a mark of `schema`'s kind from a description; undefined when absent or unreadable. */
export function readMarkOf<S extends z.ZodType>(
  schema: S,
  description: string | undefined,
): z.output<S> | undefined {
  const match = description?.match(MARK_LINE);
  if (!match?.[1]) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(match[1]));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a VM's mark back from a description; undefined when absent or unreadable. */
export function readMark(description: string | undefined): Mark | undefined {
  return readMarkOf(markSchema, description);
}

/** The user's part of a description, without the mark. */
export function userDescription(description: string | undefined): string | undefined {
  if (description === undefined) return undefined;
  const text = description.replace(MARK_LINE, "").replace(/\s+$/, "");
  return text === "" ? undefined : text;
}

/** Whether a mark records exactly this placement (used before adopting a VM). */
export function markMatches(mark: Mark, placement: Placement): boolean {
  return (
    mark.node === placement.node &&
    String(mark.template) === String(placement.template) &&
    (mark.storage ?? "") === (placement.storage ?? "") &&
    mark.isoStorage === placement.isoStorage &&
    isLinked(mark) === isLinked(placement)
  );
}
