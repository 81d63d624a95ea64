import { checkValue, type ParamSpec } from "./params.js";

/**
 * PVE::JSONSchema's property strings (`local-lvm:32,ssd=1`): parse_property_string splits the
 * value, then check_object checks each sub-key, then the format's own validator runs. A value
 * that does not parse, or that its validator refuses, is one `invalid format - <reason>` text;
 * failing sub-keys give `invalid format - format error` followed by one `<key>.<sub>: <reason>`
 * line each, as PVE::Exception prints the errors it carries.
 */

/** One sub-key of a property string: a parameter schema, plus the key a bare value belongs to. */
export interface SubKey extends Pick<
  ParamSpec,
  "type" | "optional" | "enum" | "min" | "max" | "pattern" | "verify"
> {
  /** The key a bare value (no `=`) belongs to, e.g. the volume of a drive. */
  readonly defaultKey?: boolean;
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

function errorOf(checked: ReturnType<typeof checkValue>): string | undefined {
  return typeof checked === "object" ? checked.error : undefined;
}

/**
 * Why a property string of config key `name` is bad (what follows `invalid format - `), or
 * undefined when it is valid.
 */
export function checkPropertyString(
  format: PropertyFormat,
  name: string,
  value: string,
  validate?: FormatValidator,
): string | undefined {
  const parsed = parseProperty(format, value);
  if (typeof parsed === "string") return parsed;
  const lines: string[] = [];
  for (const [key, spec] of Object.entries(format)) {
    if ("alias" in spec) continue;
    const sub = parsed[key];
    const error =
      sub === undefined
        ? spec.optional === true
          ? undefined
          : "property is missing and it is not optional"
        : errorOf(checkValue(spec, sub));
    if (error !== undefined) lines.push(`${name}.${key}: ${error}`);
  }
  // Perl prints the errors in hash order; sorted keeps the text stable.
  if (lines.length > 0) return ["format error", ...lines.sort()].join("\n");
  return validate?.(parsed);
}

/** PVE::JSONSchema::format_size: the largest of K, M, G, T that divides the byte count evenly. */
export function formatSize(bytes: number): string {
  const kb = Math.floor(bytes / 1024);
  if (kb * 1024 !== bytes) return String(bytes);
  const mb = Math.floor(kb / 1024);
  if (mb * 1024 !== kb) return `${kb}K`;
  const gb = Math.floor(mb / 1024);
  if (gb * 1024 !== mb) return `${mb}M`;
  const tb = Math.floor(gb / 1024);
  return tb * 1024 !== gb ? `${gb}G` : `${tb}T`;
}

/**
 * print_property_string: the default key's bare value first (joined to its key alias's value,
 * `virtio=<mac>`, where the format has one), then the required keys, then the rest, each group
 * sorted by key; `skip` keys and undefined values are left out.
 */
export function printProperty(
  format: PropertyFormat,
  data: Readonly<Record<string, string>>,
  skip: readonly string[] = [],
): string {
  const done = new Set(skip);
  const parts: string[] = [];
  const defaultKey = Object.keys(format).find((key) => (format[key] as SubKey).defaultKey);
  // keyAlias → the key its value is joined to (`model` → `macaddr`).
  const joined = new Map<string, string>();
  for (const spec of Object.values(format))
    if ("alias" in spec && spec.keyAlias !== "") joined.set(spec.keyAlias, spec.alias);
  const add = (key: string, bare: boolean): void => {
    if (done.has(key)) return;
    done.add(key);
    const value = data[key];
    if (value === undefined) return;
    const partner = joined.get(key);
    const partnerValue = partner === undefined ? undefined : data[partner];
    if (partner !== undefined && partnerValue !== undefined) {
      parts.push(`${value}=${partnerValue}`);
      done.add(partner);
    } else parts.push(bare ? value : `${key}=${value}`);
  };
  if (defaultKey !== undefined) add(defaultKey, true);
  const keys = Object.keys(data).sort();
  for (const key of keys) {
    const spec = format[key];
    if (spec !== undefined && !("alias" in spec) && spec.optional !== true) add(key, false);
  }
  for (const key of keys) add(key, false);
  return parts.join(",");
}
