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
  for (const name of writtenFields(desired)) {
    const spec = FIELDS[name];
    const value = desired[name];
    if ("config" in spec) {
      const mapping = spec.config as ConfigKey<unknown>;
      const wanted = mapping.format(value, seen);
      const same = mapping.same ?? sameText;
      if (!same(config[mapping.key], wanted)) set[mapping.key] = wanted;
    }
    if ("configKeys" in spec) {
      const mapping = spec.configKeys as ConfigKeys<unknown>;
      for (const [key, wanted] of Object.entries(mapping.format(value, seen))) {
        const same = mapping.same ?? ((_key, current, w) => sameText(current, w));
        if (!same(key, config[key], wanted)) set[key] = wanted;
      }
    }
  }
  return set;
}

/** The config keys a set field owns and no longer wants (a NIC dropped from `networks`). */
export function configDeletes(config: VmConfig, desired: Values, seen: Seen): string[] {
  return writtenFields(desired).flatMap((name) => {
    const spec = FIELDS[name];
    if (!("configKeys" in spec) || !("ownsKeys" in spec)) return [];
    const wanted = (spec.configKeys as ConfigKeys<unknown>).format(desired[name], seen);
    return Object.keys(config).filter((key) => spec.ownsKeys.test(key) && !(key in wanted));
  });
}

/**
 * The config keys, each with the input behind it as the user wrote it (`net1` → `networks[1]`),
 * for messages about a write PVE refused.
 */
export function keysWithInputs(keys: readonly string[], desired: Values, seen: Seen): string[] {
  const named = new Map<string, string>();
  for (const name of writtenFields(desired)) {
    const spec = FIELDS[name];
    if ("config" in spec) named.set(spec.config.key, name);
    if ("configKeys" in spec) {
      const written = Object.keys(
        (spec.configKeys as ConfigKeys<unknown>).format(desired[name], seen),
      );
      written.forEach((key, i) => named.set(key, `${name}[${i}]`));
    }
  }
  return keys.map((key) => {
    const input = named.get(key);
    return input === undefined || input === key ? key : `${key} (${input})`;
  });
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
    } else if (readBack.from === "vm" && !superseded(name, inputs)) {
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
