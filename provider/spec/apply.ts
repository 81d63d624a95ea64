/**
 * How the spec reaches PVE and comes back: the config keys `converge` writes for the inputs
 * that map to one, and the values `read` reports for drift. Both only touch inputs the program
 * sets, so the template's own settings are never written over nor reported as drift.
 */
import type { VmConfig } from "../api/proxmox-api";
import type { Mark } from "../identity";
import type { ConfigKey, ConfigKeys, ObservedVm, Seen } from "./field";
import { FIELDS, FIELD_NAMES, type FieldName } from "./fields";

type Values = Readonly<Partial<Record<FieldName, unknown>>>;

/** The config keys whose desired value differs from PVE's, formatted as PVE takes them. */
export function configChanges(
  config: VmConfig,
  desired: Values,
  seen: Seen,
): Record<string, string | number> {
  const set: Record<string, string | number> = {};
  for (const name of FIELD_NAMES) {
    const spec = FIELDS[name];
    const value = desired[name];
    if (value === undefined) continue;
    if ("config" in spec) {
      const mapping = spec.config as ConfigKey<unknown>;
      const wanted = mapping.format(value, seen);
      const same = mapping.same ?? sameText;
      if (!same(config[mapping.key], wanted)) set[mapping.key] = wanted;
    }
    if ("configKeys" in spec) {
      const mapping = spec.configKeys as ConfigKeys<unknown>;
      const same = mapping.same ?? ((_key: string, current, wanted) => sameText(current, wanted));
      for (const [key, wanted] of Object.entries(mapping.format(value, seen)))
        if (!same(key, config[key], wanted)) set[key] = wanted;
    }
  }
  return set;
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

/** Whether any of these config keys holds a change a running VM takes only at its reboot. */
export function needsReboot(keys: readonly string[]): boolean {
  return FIELD_NAMES.some((name) => {
    const spec = FIELDS[name];
    return spec.change === "reboot" && "config" in spec && keys.includes(spec.config.key);
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
      out[name] = mark ? (mark as Readonly<Record<string, unknown>>)[name] : input;
    } else if (readBack.from === "vm") {
      const read = readBack.read as (vm: ObservedVm, input: unknown) => unknown;
      out[name] = input === undefined ? undefined : read(vm, input);
    } else {
      out[name] = input;
    }
  }
  return out;
}

const sameText = (current: unknown, wanted: string | number) =>
  current !== undefined && String(current) === String(wanted);
