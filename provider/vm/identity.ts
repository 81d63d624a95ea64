/**
 * A VM's identity: who owns it (project, stack, resource name) and where it was placed (its
 * placement inputs: node, template, disk storage, ISO storage, clone mode). Everything that finds
 * "our" VM keys on it:
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
import { MARK_LINE, MARK_PREFIX } from "./description";
import { DEFAULTS, storedInputsShape } from "./spec/derive";
import type { FieldName, Fields } from "./spec/fields";

/**
 * The inputs that place a VM: those the spec says replace it when they change (`change:
 * "replace"`). Each is part of the identity, the mark and `markMatches`, all from the table below.
 */
export type PlacementName = {
  [K in FieldName]: Fields[K]["change"] extends "replace" ? K : never;
}[FieldName];

type PlacementShape = { readonly [K in PlacementName]: (typeof storedInputsShape)[K] };

/**
 * A placement: each placement input with its stored type. A left-out `clone` is a full clone,
 * so a placement written before clone modes existed still reads.
 */
export type Placement = z.input<z.ZodObject<PlacementShape>>;

/**
 * What each placement input adds to the identity's hash, in hashing order (reordering or
 * changing a row changes every VM's identity). Typed against the spec: an input that replaces
 * the VM and has no row here, or a row for any other input, does not compile. An input added
 * after VMs existed adds nothing at its default, so their identities stay as they were.
 */
const IDENTITY_PARTS: {
  readonly [K in PlacementName]: (value: Placement[K]) => readonly string[];
} = {
  node: (node) => [node],
  // An adopted VM without a template hashes its absence as this text: stable, and no name.
  template: (template) => [String(template)],
  storage: (storage) => [storage ?? ""],
  isoStorage: (isoStorage) => [isoStorage],
  clone: (clone) => (clone?.full === false ? ["linked"] : []),
};

/** The placement inputs, in hashing order. */
export const PLACEMENT_NAMES = Object.keys(IDENTITY_PARTS) as readonly PlacementName[];

const placementShape = Object.fromEntries(
  PLACEMENT_NAMES.map((name) => [name, storedInputsShape[name]]),
) as PlacementShape;

const placementSchema = z.object(placementShape);

const partsOf = (placement: Placement, name: PlacementName): readonly string[] =>
  (IDENTITY_PARTS[name] as (value: unknown) => readonly string[])(placement[name]);

/** The placement alone, out of an input set or a state that has it with the spec's types. */
export function placementIn(inputs: Placement): Placement {
  return Object.fromEntries(
    PLACEMENT_NAMES.flatMap((name) => (inputs[name] === undefined ? [] : [[name, inputs[name]]])),
  ) as Placement;
}

/**
 * The placement of an input set nobody has parsed (a pending create's stored inputs), a left-out
 * input taking the spec's default as `check` would have filled it; undefined when an input is
 * missing or not of its type.
 */
export function placementOfStored(
  inputs: Readonly<Record<string, unknown>>,
): Placement | undefined {
  const parsed = placementSchema.safeParse(
    Object.fromEntries(PLACEMENT_NAMES.map((name) => [name, inputs[name] ?? DEFAULTS[name]])),
  );
  return parsed.success ? parsed.data : undefined;
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
 * 16 hex digits of sha256 over the owner and the placement's parts. A full clone adds none, so a
 * VM created before clone modes existed keeps its identity.
 */
export function identityOf(owner: Owner, placement: Placement): string {
  const canonical = JSON.stringify([
    owner.project,
    owner.stack,
    owner.name,
    ...PLACEMENT_NAMES.flatMap((name) => partsOf(placement, name)),
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

/**
 * The owner a VM's seed ISOs are named after (`pp-<owner>-<hash>.iso`): the first 12 hex digits
 * of its identity, so a sweep tells whose seed it is with the VM gone.
 */
export function seedOwnerOf(identity: string): string {
  return identity.slice(0, 12);
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

/**
 * A mark records the placement as given, leaving out what adds nothing to the identity (a
 * full clone, no `storage`): a mark of a VM made before an input existed reads the same.
 */
const markedShape = Object.fromEntries(
  PLACEMENT_NAMES.map((name) => {
    const stored: z.ZodType = placementShape[name];
    return [
      name,
      stored instanceof z.ZodDefault ? (stored.unwrap() as z.ZodType).optional() : stored,
    ];
  }),
);

const markSchema = z.object({
  v: z.literal(1),
  id: z.string().regex(/^[0-9a-f]{16}$/),
  phase: phaseSchema,
  ...markedShape,
  /**
   * Who took the VM over with `adopt: { vmid }`: a mark that names another owner is refused by
   * a later adoption, with the owner in the message.
   */
  adoptedBy: z.object({ project: z.string(), stack: z.string(), name: z.string() }).optional(),
}) as unknown as z.ZodType<Mark>;

export type Mark = {
  readonly v: 1;
  readonly id: string;
  readonly phase: Phase;
  readonly adoptedBy?: Owner | undefined;
} & Placement;

export function markFor(
  identity: string,
  placement: Placement,
  phase: Phase,
  adoptedBy?: Owner,
): Mark {
  const recorded = PLACEMENT_NAMES.flatMap((name) =>
    placement[name] === undefined || partsOf(placement, name).length === 0
      ? []
      : [[name, placement[name]]],
  );
  return {
    v: 1,
    id: identity,
    phase,
    ...Object.fromEntries(recorded),
    ...(adoptedBy === undefined ? {} : { adoptedBy }),
  } as Mark;
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

/** Whether a mark records exactly this placement (used before adopting a VM). */
export function markMatches(mark: Mark, placement: Placement): boolean {
  return PLACEMENT_NAMES.every(
    (name) => JSON.stringify(partsOf(mark, name)) === JSON.stringify(partsOf(placement, name)),
  );
}
