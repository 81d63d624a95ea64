import { paramError } from "./pve-error.js";

/** Parameter formats the simulated endpoints use (named as in PVE's JSONSchema). */
export type ParamFormat =
  | "pve-vmid"
  | "dns-name"
  | "pve-node"
  | "pve-tag-list"
  | "pve-storage-id"
  | "pve-configid"
  | "pve-configid-list";

/** One parameter of an endpoint's schema, the subset of PVE's JSONSchema the simulator needs. */
export interface ParamSpec {
  readonly type: "string" | "integer" | "number" | "boolean";
  readonly optional?: boolean;
  readonly format?: ParamFormat;
  readonly enum?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  readonly maxLength?: number;
  readonly pattern?: RegExp;
  /** A format PVE checks in code (property strings…): why a value is bad, or undefined. */
  readonly verify?: (value: string) => string | undefined;
  /** "Only root may use this option.": a token is never root@pam, so these always fail. */
  readonly rootOnly?: boolean;
}

export type ParamSchema = Readonly<Record<string, ParamSpec>>;
/** Typed values after validation: integers and booleans as numbers (0/1), the rest as strings. */
export type Params = Record<string, string | number>;
export type RawParams = Record<string, string | number | boolean>;

const VMID_RE = /^[1-9][0-9]{2,8}$/;
const DNS_LABEL = "[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?";
const DNS_RE = new RegExp(`^(${DNS_LABEL}\\.)*${DNS_LABEL}$`);
const NODE_RE = /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/;
const TAG_RE = /^[a-z0-9_][a-z0-9_\-+.]*$/i;
const STORAGE_RE = /^[a-z][a-z0-9\-_.]*[a-z0-9]$/i;
const CONFIGID_RE = /^[a-z][a-z_]*\d*$/i;
/** pve-common JSONSchema.pm `$CONFIGID_RE` (`pve_verify_configid`), e.g. snapshot names. */
const SINGLE_CONFIGID_RE = /^[a-z][a-z0-9_-]+$/i;
const INTEGER_RE = /^-?\d+$/;
const NUMBER_RE = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** Splits a PVE list value on `,` `;` whitespace and NUL, as PVE::Tools::split_list does. */
export function splitList(value: string): string[] {
  return value.split(/[,;\s\0]+/).filter((item) => item !== "");
}

function checkFormat(format: ParamFormat, value: string): string | undefined {
  switch (format) {
    case "pve-vmid":
      return VMID_RE.test(value)
        ? undefined
        : "invalid format - value does not look like a valid VM ID";
    case "dns-name":
      return DNS_RE.test(value)
        ? undefined
        : "invalid format - value does not look like a valid DNS name";
    case "pve-node":
      return NODE_RE.test(value)
        ? undefined
        : "invalid format - value does not look like a valid node name";
    case "pve-tag-list":
      return splitList(value).every((tag) => TAG_RE.test(tag))
        ? undefined
        : "invalid format - invalid characters in tag";
    case "pve-storage-id":
      return STORAGE_RE.test(value)
        ? undefined
        : `invalid format - storage ID '${value}' contains illegal characters`;
    case "pve-configid":
      return SINGLE_CONFIGID_RE.test(value)
        ? undefined
        : `invalid format - invalid configuration ID '${value}'`;
    case "pve-configid-list": {
      const bad = splitList(value).find((id) => !CONFIGID_RE.test(id));
      return bad === undefined ? undefined : `invalid format - invalid configuration ID '${bad}'`;
    }
  }
}

/** Checks one value; returns the typed value or PVE's error text for it (check_prop's order). */
export function checkValue(
  spec: ParamSpec,
  raw: string | number | boolean,
): string | number | { error: string } {
  if (spec.type === "boolean") {
    // JSON bodies may carry true/false; form and query values must be exactly 1 or 0.
    if (typeof raw === "boolean") return raw ? 1 : 0;
    const text = String(raw);
    if (text === "1" || text === "0") return Number(text);
    return { error: `type check ('boolean') failed - got '${text}'` };
  }
  const text = String(raw);
  if (spec.type === "integer" && !INTEGER_RE.test(text)) {
    return { error: `type check ('integer') failed - got '${text}'` };
  }
  if (spec.type === "number" && !NUMBER_RE.test(text)) {
    return { error: `type check ('number') failed - got '${text}'` };
  }
  if (spec.format !== undefined) {
    const error = checkFormat(spec.format, text);
    if (error !== undefined) return { error };
  }
  const verified = spec.verify?.(text);
  if (verified !== undefined) return { error: `invalid format - ${verified}` };
  if (spec.type === "integer" || spec.type === "number") {
    const n = Number(text);
    if (spec.min !== undefined && n < spec.min)
      return { error: `value must have a minimum value of ${spec.min}` };
    if (spec.max !== undefined && n > spec.max)
      return { error: `value must have a maximum value of ${spec.max}` };
  }
  if (spec.maxLength !== undefined && text.length > spec.maxLength) {
    return { error: `value may only be ${spec.maxLength} characters long` };
  }
  if (spec.enum !== undefined && !spec.enum.includes(text)) {
    return {
      error: `value '${text}' does not have a value in the enumeration '${spec.enum.join(", ")}'`,
    };
  }
  if (spec.pattern !== undefined && !spec.pattern.test(text)) {
    return { error: "value does not match the regex pattern" };
  }
  // Perl keeps `number` values as strings; JSON::XS then prints them quoted ("cpulimit":"4").
  return spec.type === "integer" ? Number(text) : text;
}

/** PVE::JSONSchema's text for a parameter the method does not define. */
export const UNKNOWN_PROPERTY =
  "property is not defined in schema and the schema does not allow additional properties";

/**
 * Validates parameters against a schema the way PVE::JSONSchema::validate does: every error is
 * collected into one 400 with an `errors` map; unknown parameters are rejected.
 */
export function validateParams(
  raw: RawParams,
  schema: ParamSchema,
  dynamic?: (name: string) => ParamSpec | undefined,
): Params {
  const errors: Record<string, string> = {};
  const out: Params = {};
  for (const [name, value] of Object.entries(raw)) {
    const spec = schema[name] ?? dynamic?.(name);
    if (spec === undefined) {
      errors[name] = UNKNOWN_PROPERTY;
      continue;
    }
    const checked = checkValue(spec, value);
    if (typeof checked === "object") errors[name] = checked.error;
    else if (spec.rootOnly === true) errors[name] = "Only root may use this option.";
    else out[name] = checked;
  }
  for (const [name, spec] of Object.entries(schema)) {
    if (spec.optional !== true && raw[name] === undefined && errors[name] === undefined) {
      errors[name] = "property is missing and it is not optional";
    }
  }
  if (Object.keys(errors).length > 0) throw paramError(errors);
  return out;
}

/** Common path parameters. */
export const NODE: ParamSpec = { type: "string", format: "pve-node" };
export const VMID: ParamSpec = { type: "integer", format: "pve-vmid", min: 100, max: 999999999 };
export const STORAGE: ParamSpec = { type: "string", format: "pve-storage-id" };
