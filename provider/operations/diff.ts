/**
 * diff: old outputs against new inputs (the SDK passes the stored outputs as `olds`). Pure.
 *
 * - Placement (node, template, storage, isoStorage) and a pinned name or VMID are replacements,
 *   never a silent adoption (docs/design.md, "Identity and placement"). The identity changes with placement,
 *   so create-before-delete never collides; a pinned name or VMID replaces delete-first.
 * - Everything else updates in place, cloud-init included (a re-seed, not a rebuild).
 * - A value still unknown during preview counts as a possible change of its kind.
 * - `changes` is always set (the engine drops `stables`); `__provider` never counts.
 * - A VM found on another node than its placement (HA, a manual migration) is drift of
 *   `currentNode`, an in-place change (`up` moves it back), never a replacement; with
 *   `nodeDrift: "accept"` the move is accepted and not reported.
 */
import { canonical } from "../canonical";
import { containsUnknown, isUnknown, normalizeTags } from "../inputs";

export interface DiffResult {
  readonly changes: boolean;
  readonly replaces: string[];
  readonly deleteBeforeReplace: boolean;
  /** The properties that differ, replacements included, for messages and tests. */
  readonly changed: string[];
}

type Props = Readonly<Record<string, unknown>>;

const PLACEMENT = ["node", "template", "storage", "isoStorage"] as const;
const PINNED = ["name", "vmid"] as const;
const DEFAULTS: Props = {
  isoStorage: "local",
  started: true,
  waitForIp: true,
  rebootPolicy: "allow",
  adopt: false,
};
const IN_PLACE = [
  "cores",
  "memory",
  "diskSize",
  "description",
  "started",
  "waitForIp",
  "rebootPolicy",
  "nodeDrift",
  "adopt",
] as const;
const STRUCTURED = ["network", "cloudInit", "timeouts", "vmidRange"] as const;

export function diffVm(olds: Props, news: Props): DiffResult {
  const replaces: string[] = [];
  const changed: string[] = [];

  for (const key of PLACEMENT) {
    if (differs(withDefault(olds, key), withDefault(news, key))) replaces.push(key);
  }
  for (const key of PINNED) {
    // Only a pinned value replaces; an allocated VMID or derived name is not an input.
    if (news[key] !== undefined && differs(olds[key], news[key])) replaces.push(key);
  }
  for (const key of IN_PLACE) {
    if (key in news || key in DEFAULTS) {
      if (news[key] !== undefined && differs(withDefault(olds, key), withDefault(news, key)))
        changed.push(key);
    }
  }
  if (Array.isArray(news["tags"]) || isUnknown(news["tags"])) {
    const old = Array.isArray(olds["tags"]) ? normalizeTags(olds["tags"] as string[]) : [];
    const now = Array.isArray(news["tags"])
      ? normalizeTags(news["tags"] as string[])
      : news["tags"];
    if (differs(old, now)) changed.push("tags");
  }
  for (const key of STRUCTURED) {
    if (news[key] !== undefined && differs(olds[key], news[key])) changed.push(key);
  }
  const moved =
    typeof olds["currentNode"] === "string" &&
    typeof news["node"] === "string" &&
    olds["currentNode"] !== news["node"] &&
    !replaces.includes("node");
  if (moved && withDefault(news, "nodeDrift") !== "accept") changed.push("currentNode");

  const pinned = PINNED.some((key) => news[key] !== undefined);
  return {
    changes: replaces.length > 0 || changed.length > 0,
    replaces,
    deleteBeforeReplace: replaces.length > 0 && pinned,
    changed: [...replaces, ...changed],
  };
}

function withDefault(props: Props, key: string): unknown {
  return props[key] ?? DEFAULTS[key];
}

/** Structural inequality; an unknown value always may differ. */
function differs(a: unknown, b: unknown): boolean {
  if (isUnknown(a) || isUnknown(b) || containsUnknown(b)) return true;
  return canonical(a) !== canonical(b);
}
