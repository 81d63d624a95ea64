/**
 * PVE::JSONSchema's property strings (`local-lvm:32,ssd=1`): parse_property_string splits the
 * value, then check_object checks each sub-key, then the format's own validator runs. A value
 * that does not parse, or that its validator refuses, is one `invalid format - <reason>` text;
 * failing sub-keys give `invalid format - format error` followed by one `<key>.<sub>: <reason>`
 * line each, as PVE::Exception prints the errors it carries.
 */

/** One sub-key of a property string. */
export interface SubKey {
  readonly type: "string" | "integer" | "number" | "boolean";
  readonly optional?: boolean;
  /** The key a bare value (no `=`) belongs to, e.g. the volume of a drive. */
  readonly defaultKey?: boolean;
  readonly enum?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  readonly pattern?: RegExp;
  /** A named check returning PVE's text for a bad value. */
  readonly verify?: (value: string) => string | undefined;
}

/** `virtio=<mac>`: the key is stored as `model`, the value as `macaddr` (PVE's keyAlias). */
interface KeyAlias {
  readonly alias: string;
  readonly keyAlias: string;
}

export type PropertyFormat = Readonly<Record<string, SubKey | KeyAlias>>;

/** A format's own check after parsing (PVE's format validator): its die text, or undefined. */
export type FormatValidator = (parsed: Readonly<Record<string, string>>) => string | undefined;

function parseBoolean(value: string): string {
  if (/^(1|on|yes|true)$/i.test(value)) return "1";
  if (/^(0|off|no|false)$/i.test(value)) return "0";
  return value;
}

function checkSubKey(spec: SubKey, value: string): string | undefined {
  if (spec.type === "boolean" && value !== "1" && value !== "0")
    return `type check ('boolean') failed - got '${value}'`;
  if (spec.type === "integer" && !/^-?\d+$/.test(value))
    return `type check ('integer') failed - got '${value}'`;
  if (spec.type === "number" && !/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value))
    return `type check ('number') failed - got '${value}'`;
  const verified = spec.verify?.(value);
  if (verified !== undefined) return `invalid format - ${verified}`;
  if (spec.pattern !== undefined && !spec.pattern.test(value))
    return "value does not match the regex pattern";
  if (spec.type === "integer" || spec.type === "number") {
    const n = Number(value);
    if (spec.max !== undefined && n > spec.max)
      return `value must have a maximum value of ${spec.max}`;
    if (spec.min !== undefined && n < spec.min)
      return `value must have a minimum value of ${spec.min}`;
  }
  if (spec.enum !== undefined && !spec.enum.includes(value))
    return `value '${value}' does not have a value in the enumeration '${spec.enum.join(", ")}'`;
  return undefined;
}

/** parse_property_string: the sub-keys of `value`, or the die text that stops parsing. */
export function parseProperty(
  format: PropertyFormat,
  value: string,
): Record<string, string> | string {
  const out: Record<string, string> = {};
  const defaultKey = Object.keys(format).find((key) => (format[key] as SubKey).defaultKey);
  for (const part of value.split(",")) {
    if (/^\s*$/.test(part)) continue;
    const match = /^([^=]+)=(.+)$/s.exec(part);
    if (match !== null) {
      const val = match[2] ?? "";
      let key = match[1] ?? "";
      if (out[key] !== undefined) return `duplicate key in comma-separated list property: ${key}`;
      const spec = format[key];
      if (spec !== undefined && "alias" in spec) {
        if (spec.keyAlias !== "") out[spec.keyAlias] = key;
        key = spec.alias;
      }
      const target = format[key];
      if (target === undefined) return `invalid key in comma-separated list property: ${key}`;
      out[key] = (target as SubKey).type === "boolean" ? parseBoolean(val) : val;
    } else if (!part.includes("=")) {
      if (defaultKey === undefined)
        return "value without key, but schema does not define a default key";
      if (out[defaultKey] !== undefined)
        return `duplicate key in comma-separated list property: ${defaultKey}`;
      out[defaultKey] = part;
    } else {
      return "missing key in comma-separated list property";
    }
  }
  return out;
}

/** PVE's text for a bad property string of config key `name`, or undefined when it is valid. */
export function checkPropertyString(
  format: PropertyFormat,
  name: string,
  value: string,
  validate?: FormatValidator,
): string | undefined {
  const parsed = parseProperty(format, value);
  if (typeof parsed === "string") return `invalid format - ${parsed}`;
  const lines: string[] = [];
  for (const [key, spec] of Object.entries(format)) {
    if ("alias" in spec) continue;
    const sub = parsed[key];
    const error =
      sub === undefined
        ? spec.optional === true
          ? undefined
          : "property is missing and it is not optional"
        : checkSubKey(spec, sub);
    if (error !== undefined) lines.push(`${name}.${key}: ${error}`);
  }
  // Perl prints the errors in hash order; sorted keeps the text stable.
  if (lines.length > 0) return ["invalid format - format error", ...lines.sort()].join("\n");
  const refused = validate?.(parsed);
  return refused === undefined ? undefined : `invalid format - ${refused}`;
}
