/**
 * The inputs that say what an existing VM has (`pulumi-proxmox import`), derived from the spec's
 * read-back rules: each field reads the VM back the way refresh does, asked for all the VM sets
 * of it (the field's `probe`). A value is kept only when it passes the input's schema and an
 * adoption would write nothing for it, so pasting the inputs adopts the VM without a change;
 * everything else the VM holds is named in a note, never dropped silently (docs/design.md,
 * "Import derives from the read-back").
 */
import { parseNic } from "../state/vm-facts";
import { configChanges, configDeletes, managedKeys } from "./apply";
import type { ConfigKey, FieldSpec, ObservedVm, Seen } from "./field";
import { FIELDS, FIELD_NAMES, type FieldName } from "./fields";
import { nicKey } from "./network";

export interface ImportedInputs {
  /** The inputs as a program writes them, in the spec's order. */
  readonly inputs: Partial<Record<FieldName, unknown>>;
  /** What the VM has that the inputs leave as it is, one sentence each. */
  readonly notes: readonly string[];
}

/**
 * Config keys that are PVE's bookkeeping or the adoption's own: the VM keeps its name, the
 * description is `description` plus the mark, and the rest PVE generates.
 */
const NOT_SETTINGS: ReadonlySet<string> = new Set([
  "digest",
  "name",
  "description",
  "meta",
  "vmgenid",
  "smbios1",
  "template",
]);

type Field = Pick<FieldSpec, "readBack" | "schema" | "conflict" | "excludes" | "shorthandOf"> & {
  readonly config?: ConfigKey<unknown>;
};

export function importedInputs(vm: ObservedVm): ImportedInputs {
  const notes: string[] = [];
  const seen: Seen = { macs: macsOf(vm), config: vm.config };
  // The config keys of a field left out: its note names them already.
  const accounted = new Set<string>();
  const read = new Map<FieldName, { value: unknown; parsed: unknown }>();
  for (const name of FIELD_NAMES) {
    const value = readAll(FIELDS[name] as Field, vm);
    if (value === undefined) continue;
    const parsed = (FIELDS[name] as Field).schema.safeParse(value);
    if (parsed.success) {
      read.set(name, { value, parsed: parsed.data });
      continue;
    }
    for (const key of keysOf(name, value, seen)) accounted.add(key);
    notes.push(
      `${name}: left out, so the VM keeps ${show(value)}: ` + `${reason(name, parsed.error)}.`,
    );
  }
  // The shorthand (`cores`, `network`) gives way to the full form the VM needs.
  for (const name of read.keys()) {
    for (const other of (FIELDS[name] as Field).excludes ?? []) read.delete(other as FieldName);
  }
  for (const name of read.keys()) {
    const full = (FIELDS[name] as Field).shorthandOf;
    if (full !== undefined && read.has(full as FieldName)) read.delete(name);
  }

  const parsedAll = Object.fromEntries([...read].map(([name, { parsed }]) => [name, parsed]));
  for (const [name, { parsed }] of read) {
    const one = { [name]: parsed };
    const set = configChanges(vm.config, one, seen);
    const deleted = configDeletes(vm.config, one, seen);
    const conflict = (FIELDS[name] as Field).conflict?.(parsed, parsedAll);
    if (Object.keys(set).length === 0 && deleted.length === 0 && conflict === undefined) continue;
    read.delete(name);
    for (const key of managedKeys(one, seen)) accounted.add(key);
    notes.push(
      conflict !== undefined
        ? `${name}: left out, so the VM keeps ${show(parsed)}: ${conflict}`
        : `${name}: left out, so the VM keeps ${changes(vm.config, set, deleted)}.`,
    );
  }

  const inputs = Object.fromEntries([...read].map(([name, { value }]) => [name, plain(value)]));
  const managed = new Set(
    managedKeys(Object.fromEntries([...read].map(([n, v]) => [n, v.parsed])), seen),
  );
  const kept = Object.keys(vm.config)
    .filter((key) => !managed.has(key) && !accounted.has(key) && !NOT_SETTINGS.has(key))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  if (kept.length > 0) {
    notes.push(`Kept as they are, as no input says them: ${kept.join(", ")}.`);
  }
  return { inputs, notes };
}

/** The field read back as the VM has it, asked for everything the VM sets of it. */
function readAll(spec: Field, vm: ObservedVm): unknown {
  const readBack = spec.readBack;
  if (readBack.from !== "vm") return undefined;
  const read = readBack.read as (vm: ObservedVm, input: unknown) => unknown;
  if (readBack.probe !== undefined) {
    const probe = (readBack.probe as (vm: ObservedVm) => unknown)(vm);
    return probe === undefined ? undefined : read(vm, probe);
  }
  if (spec.config === undefined || spec.shorthandOf !== undefined) return undefined;
  return vm.config[spec.config.key] === undefined ? undefined : read(vm, undefined);
}

/** Each NIC's MAC as the VM has it: an adoption keeps them. */
function macsOf(vm: ObservedVm): Record<string, string | undefined> {
  const macs: Record<string, string | undefined> = {};
  for (let i = 0; vm.config[nicKey(i)] !== undefined; i++) {
    macs[nicKey(i)] = parseNic(String(vm.config[nicKey(i)]))?.mac;
  }
  return macs;
}

/** The value without its undefined members, as a program writes it. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, plain(v)]),
  );
}

const show = (value: unknown) => JSON.stringify(plain(value));

/** zod's issues, each at its path as the user writes it: `networks[0].model …`. */
function reason(
  name: string,
  error: { readonly issues: readonly { path: PropertyKey[]; message: string }[] },
) {
  return error.issues
    .map((issue) => {
      const path = issue.path
        .map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`))
        .join("");
      return path === "" ? issue.message : `${name}${path}: ${issue.message}`;
    })
    .join("; ");
}

/** The config keys a value the schema refused would be written to, as far as can be told. */
function keysOf(name: FieldName, value: unknown, seen: Seen): string[] {
  try {
    return managedKeys({ [name]: value }, seen);
  } catch {
    return [];
  }
}

/** `agent=0: the input would write agent=1`: what the VM has, and what the input would do. */
function changes(
  config: ObservedVm["config"],
  set: Readonly<Record<string, unknown>>,
  deleted: readonly string[],
): string {
  const keys = [...Object.keys(set), ...deleted];
  const has = keys.map((key) =>
    config[key] === undefined ? `no ${key}` : `${key}=${String(config[key])}`,
  );
  const would = [
    ...Object.entries(set).map(([key, value]) => `write ${key}=${String(value)}`),
    ...deleted.map((key) => `remove ${key}`),
  ];
  return `${has.join(", ")}: the input would ${would.join(", ")}`;
}
