/**
 * How the spec reaches PVE and comes back: the config keys `converge` writes for the inputs
 * that map to one, and the values `read` reports for drift. Both only touch inputs the program
 * sets, so the template's own settings are never written over nor reported as drift.
 */
import type { VmConfig } from "../api/proxmox-api";
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
  return FIELD_NAMES.flatMap((name): Wanted[] => {
    const spec = FIELDS[name];
    const value = desired[name];
    if (value === undefined) return [];
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

/** The config keys the set inputs want gone and PVE still has (a disk marked `remove`). */
export function configDeletes(config: VmConfig, desired: Values): string[] {
  return FIELD_NAMES.flatMap((name) => {
    const spec = FIELDS[name];
    const value = desired[name];
    if (!("configRemoves" in spec) || value === undefined) return [];
    const removes = spec.configRemoves as (value: unknown) => readonly string[];
    return removes(value).filter((key) => config[key] !== undefined);
  });
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
    } else if (readBack.from === "vm") {
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
