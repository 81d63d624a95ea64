/**
 * diff: old outputs against new inputs (the SDK passes the stored outputs as `olds`). Pure.
 *
 * - Each field's kind of change comes from the spec (provider/vm/spec/fields.ts). Placement (node,
 *   template, storage, isoStorage) and a pinned name or VMID are replacements, never a silent
 *   adoption (docs/design.md, "Identity and placement"). The identity changes with placement, so
 *   create-before-delete never collides; a pinned name or VMID replaces delete-first.
 * - Everything else updates in place, cloud-init included (a re-seed, not a rebuild), compared
 *   after the spec's defaults and normalisations (tags as PVE stores them).
 * - A value still unknown during preview counts as a possible change of its kind.
 * - `changes` is always set (the engine drops `stables`); `__provider` never counts.
 * - A VM found on another node than its placement (HA, a manual migration) is drift of
 *   `currentNode`, an in-place change (`up` moves it back), never a replacement; with
 *   `nodeDrift: "accept"` the move is accepted and not reported.
 */
import { canonical } from "../../inputs/canonical";
import { containsUnknown, isUnknown } from "../../inputs/unknown";
import { DEFAULTS, fieldsChanged } from "../spec/derive";
import { FIELDS, type FieldName } from "../spec/fields";
import { PermanentError } from "../../pve/errors";
import { adoptedVmid } from "./check-adopt";

export interface DiffResult {
  readonly changes: boolean;
  readonly replaces: string[];
  readonly deleteBeforeReplace: boolean;
  /** The properties that differ, replacements included, for messages and tests. */
  readonly changed: string[];
}

type Props = Readonly<Record<string, unknown>>;

const PLACEMENT = fieldsChanged("replace");
const PINNED = fieldsChanged("replace-delete-first");
const IN_PLACE = fieldsChanged("hot", "hotplug", "reboot", "setting");

export function diffVm(olds: Props, news: Props): DiffResult {
  const replaces: string[] = [];
  const changed: string[] = [];

  for (const key of PLACEMENT) {
    // An adopted VM has no template: naming one later records it, and replaces nothing.
    if (key === "template" && olds[key] === undefined && adoptedVmid(olds) !== undefined) continue;
    if (differs(withDefault(olds, key), withDefault(news, key))) replaces.push(key);
  }
  for (const key of PINNED) {
    // Only a pinned value replaces; an allocated VMID or derived name is not an input.
    if (news[key] !== undefined && differs(olds[key], news[key])) replaces.push(key);
  }
  for (const key of IN_PLACE) {
    const set = news[key] !== undefined || (undoneWhenRemoved(key) && olds[key] !== undefined);
    if (set && differs(compared(olds, key), compared(news, key))) changed.push(key);
  }
  const moved =
    typeof olds["currentNode"] === "string" &&
    typeof news["node"] === "string" &&
    olds["currentNode"] !== news["node"] &&
    !replaces.includes("node");
  if (moved && withDefault(news, "nodeDrift") !== "accept") changed.push("currentNode");
  // A protected update a killed run left (read found its snapshot): `up` finishes it.
  const protectedNow =
    news["rollbackOnFailure"] !== undefined && news["rollbackOnFailure"] !== false;
  if (typeof olds["unfinishedUpdate"] === "string" && protectedNow)
    changed.push("unfinishedUpdate");

  const pinned = PINNED.some((key) => news[key] !== undefined);
  if (replaces.length > 0) refuseReplacingWithoutTemplate(olds, news, replaces);
  return {
    changes: replaces.length > 0 || changed.length > 0,
    replaces,
    deleteBeforeReplace: replaces.length > 0 && pinned,
    changed: [...replaces, ...changed],
  };
}

/**
 * A VM taken over by `adopt: { vmid }` without a template cannot be replaced: there is nothing
 * to clone the new VM from. Refused at preview, before anything is written.
 */
function refuseReplacingWithoutTemplate(olds: Props, news: Props, replaces: string[]): void {
  if (adoptedVmid(news) === undefined || news["template"] !== undefined) return;
  const vmid = typeof olds["vmid"] === "number" ? olds["vmid"] : adoptedVmid(news);
  throw new PermanentError(
    "INVALID_PARAM",
    `${replaces.join(", ")}: changing ${replaces.length > 1 ? "these replaces" : "it replaces"} ` +
      `VM ${vmid}, which was adopted without a template, so there is nothing to clone the new VM ` +
      "from; nothing was changed. Set template to the template the replacement is cloned from, " +
      "or undo the change.",
    { vmid },
  );
}

/** A removed input is a change only for fields whose removal undoes them (pool). */
const undoneWhenRemoved = (key: FieldName): boolean => "undoneWhenRemoved" in FIELDS[key];

function withDefault(props: Props, key: FieldName): unknown {
  return props[key] ?? DEFAULTS[key];
}

/** The value as PVE would store it (tags normalised); an unknown stays unknown. */
function compared(props: Props, key: FieldName): unknown {
  const value = withDefault(props, key);
  const spec = FIELDS[key];
  return "normalize" in spec && !isUnknown(value) ? spec.normalize(value) : value;
}

/** Structural inequality; an unknown value always may differ. */
function differs(a: unknown, b: unknown): boolean {
  if (isUnknown(a) || isUnknown(b) || containsUnknown(b)) return true;
  return canonical(a) !== canonical(b);
}
