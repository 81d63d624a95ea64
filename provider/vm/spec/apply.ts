/**
 * How the spec reaches PVE and comes back: the config keys `converge` writes for the inputs
 * that map to one, and the values `read` reports for drift. Both only touch inputs the program
 * sets, so the template's own settings are never written over nor reported as drift.
 */
import type { VmConfig } from "../../pve/api/proxmox-api";
import type { Mark } from "../identity";
import {
  sameText,
  type ConfigKey,
  type ConfigKeys,
  type FieldSpec,
  type HotWhen,
  type ObservedVm,
  type Seen,
} from "./field";
import { FIELDS, FIELD_NAMES, type FieldName } from "./fields";
import { parseHotplug } from "./lifecycle";

type Values = Readonly<Partial<Record<FieldName, unknown>>>;

/** One PVE key a set input wants, and the field it comes from. */
interface Wanted {
  readonly field: FieldName;
  readonly key: string;
  readonly value: string | number;
  readonly same: (current: unknown, wanted: string | number) => boolean;
}

/** Every config key the set inputs want, formatted as PVE takes them. */
function wantedKeys(desired: Values, seen: Seen): Wanted[] {
  return writtenFields(desired).flatMap((name): Wanted[] => {
    const spec = FIELDS[name];
    const value = desired[name];
    if ("config" in spec) {
      const mapping = spec.config as ConfigKey<unknown>;
      const same = mapping.same ?? sameText;
      return [{ field: name, key: mapping.key, value: mapping.format(value, seen), same }];
    }
    if ("configKeys" in spec) {
      const mapping = spec.configKeys as ConfigKeys<unknown>;
      return Object.entries(mapping.format(value, seen)).map(([key, wanted]) => ({
        field: name,
        key,
        value: wanted,
        same: (current, want) => (mapping.same ?? sameKeyText)(key, current, want),
      }));
    }
    return [];
  });
}

/** The config keys whose desired value differs from PVE's, formatted as PVE takes them. */
export function configChanges(
  config: VmConfig,
  desired: Values,
  seen: Seen,
): Record<string, string | number> {
  const set: Record<string, string | number> = {};
  for (const { key, value, same } of wantedKeys(desired, seen)) {
    if (!same(config[key], value)) set[key] = value;
  }
  return set;
}

/** The config keys the program sets: the ones whose pending changes are the program's. */
export function managedKeys(desired: Values, seen: Seen): string[] {
  return wantedKeys(desired, seen).map((wanted) => wanted.key);
}

/**
 * Of these written keys, the ones a running VM takes only at its next reboot (PVE keeps them
 * under `/pending`). A key of a `reboot` field is hot when its `hotKeys` rule holds for the VM's
 * current config: PVE decides with the `hotplug` and `numa` the VM runs with, not the new ones.
 */
export function waitingKeys(
  keys: readonly string[],
  desired: Values,
  seen: Seen,
  current: VmConfig,
): string[] {
  const hotplug = parseHotplug(current["hotplug"]);
  const numa = Number(current["numa"] ?? 0) === 1;
  const isHot = (when: HotWhen | undefined) =>
    when === "always" ||
    (when !== undefined && hotplug.includes(when.hotplug) && (when.numa !== true || numa));
  return wantedKeys(desired, seen)
    .filter(({ field, key }) => {
      const spec = FIELDS[field] as Pick<FieldSpec, "change" | "hotKeys">;
      return keys.includes(key) && spec.change === "reboot" && !isHot(spec.hotKeys?.[key]);
    })
    .map(({ key }) => key);
}

/**
 * The field behind each of these keys, written or deleted: the one that formats it, or the one
 * that wants it gone (a disk marked `remove`) or owns it (a NIC dropped from `networks`). A key
 * no set input accounts for is left out.
 */
export function fieldsBehind(
  keys: readonly string[],
  desired: Values,
  seen: Seen,
): Map<string, FieldName> {
  const out = new Map<string, FieldName>();
  for (const { field, key } of wantedKeys(desired, seen))
    if (keys.includes(key)) out.set(key, field);
  for (const name of writtenFields(desired)) {
    const spec = FIELDS[name];
    const removed =
      "configRemoves" in spec
        ? (spec.configRemoves as (value: unknown) => readonly string[])(desired[name])
        : [];
    for (const key of keys) {
      const owned = "ownsKeys" in spec && spec.ownsKeys.test(key);
      if (!out.has(key) && (owned || removed.includes(key))) out.set(key, name);
    }
  }
  return out;
}

/**
 * The config keys the set inputs want gone and PVE still has: a disk marked `remove`, and a key
 * a field owns but no longer writes (a NIC dropped from `networks`).
 */
export function configDeletes(config: VmConfig, desired: Values, seen: Seen): string[] {
  return writtenFields(desired).flatMap((name) => {
    const spec = FIELDS[name];
    const value = desired[name];
    const removed =
      "configRemoves" in spec
        ? (spec.configRemoves as (value: unknown) => readonly string[])(value)
        : [];
    const dropped =
      "configKeys" in spec && "ownsKeys" in spec
        ? Object.keys(config).filter(
            (key) =>
              spec.ownsKeys.test(key) &&
              !(key in (spec.configKeys as ConfigKeys<unknown>).format(value, seen)),
          )
        : [];
    return [...new Set([...removed, ...dropped])].filter((key) => config[key] !== undefined);
  });
}

/**
 * The config keys, each with the input behind it as the user wrote it, for progress lines and
 * messages about a write PVE refused: `memory`, `cores (cpu)`, `net1 (networks[1])`.
 */
export function keysWithInputs(keys: readonly string[], desired: Values, seen: Seen): string[] {
  const named = new Map<string, string>();
  for (const name of writtenFields(desired)) {
    const spec = FIELDS[name];
    if ("config" in spec) named.set(spec.config.key, name);
    if ("configKeys" in spec) {
      const value = desired[name];
      const written = Object.keys((spec.configKeys as ConfigKeys<unknown>).format(value, seen));
      written.forEach((key, i) => named.set(key, inputOfKey(name, value, key, i)));
    }
  }
  return keys.map((key) => {
    const input = named.get(key);
    return input === undefined || input === key ? key : `${key} (${input})`;
  });
}

/**
 * The input behind one key of a field that writes several: a list's element, the one that names
 * the key (a disk's `interface`) or else the one at the key's place (`net1` is `networks[1]`);
 * an object's field as a whole (`cores` of `cpu`).
 */
function inputOfKey(name: string, value: unknown, key: string, place: number): string {
  if (!Array.isArray(value)) return name;
  const naming = value.findIndex(
    (item) =>
      typeof item === "object" && item !== null && Object.values(item).some((v) => v === key),
  );
  return `${name}[${naming >= 0 ? naming : place}]`;
}

/** The fields converge writes: those set, except a shorthand whose full form is set. */
function writtenFields(desired: Values): FieldName[] {
  return FIELD_NAMES.filter((name) => desired[name] !== undefined && !superseded(name, desired));
}

/** Whether `name` is a shorthand (`network`) of an input that is set (`networks`). */
function superseded(name: FieldName, inputs: Values): boolean {
  const spec = FIELDS[name];
  return "shorthandOf" in spec && inputs[spec.shorthandOf as FieldName] !== undefined;
}

/**
 * The inputs as the VM shows them now: placement as its mark records it, each set input the spec
 * reads back as PVE holds it, the provider's own settings as given.
 */
export function observedInputs(
  vm: ObservedVm,
  mark: Mark | undefined,
  inputs: Values,
): Partial<Record<FieldName, unknown>> {
  const out: Partial<Record<FieldName, unknown>> = {};
  for (const name of FIELD_NAMES) {
    const readBack = FIELDS[name].readBack;
    const input = inputs[name];
    if (readBack.from === "mark") {
      // The mark leaves a default out (a full clone has no `clone`): it reads as the default.
      const recorded = mark ? (mark as Readonly<Record<string, unknown>>)[name] : input;
      out[name] = recorded ?? ("default" in FIELDS[name] ? FIELDS[name].default : undefined);
    } else if (readBack.from === "vm" && !superseded(name, inputs)) {
      const read = readBack.read as (vm: ObservedVm, input: unknown) => unknown;
      out[name] = input === undefined ? undefined : read(vm, input);
    } else {
      out[name] = input;
    }
  }
  return out;
}

const sameKeyText = (_key: string, current: unknown, wanted: string | number) =>
  sameText(current, wanted);
