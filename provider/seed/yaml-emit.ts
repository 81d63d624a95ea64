/**
 * A small YAML emitter for the documents we generate (no YAML library is a dependency). It
 * writes block style, and quotes every string that YAML 1.1 (PyYAML, which cloud-init uses)
 * could read as anything but that string: `yes`, `0755`, `1:30`, a MAC address, `~`, `null`…
 * Multi-line strings become literal blocks (`|`) when that is lossless, else double-quoted.
 * Numbers must be safe integers. Output is checked against PyYAML's `safe_load` in the tests.
 */

export type YamlValue =
  string | number | boolean | null | readonly YamlValue[] | { readonly [key: string]: YamlValue };

const INDENT = "  ";

/** Renders `value` as a YAML document, with a trailing newline and an optional first line. */
export function emitYaml(value: YamlValue, header?: string): string {
  const body = isCollection(value) && !isEmpty(value) ? block(value, 0) : `${scalar(value, 1)}\n`;
  return header === undefined ? body : `${header}\n${body}`;
}

function isCollection(
  value: YamlValue,
): value is readonly YamlValue[] | { readonly [key: string]: YamlValue } {
  return typeof value === "object" && value !== null;
}

function isEmpty(value: readonly YamlValue[] | { readonly [key: string]: YamlValue }): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

/** A non-empty collection at `depth`, one entry a line. */
function block(
  value: readonly YamlValue[] | { readonly [key: string]: YamlValue },
  depth: number,
): string {
  const pad = INDENT.repeat(depth);
  let out = "";
  if (Array.isArray(value)) {
    for (const item of value as readonly YamlValue[]) {
      if (isCollection(item) && !isEmpty(item)) {
        // `- key: v` / `- - x`: the first line of the nested block shares the dash's line.
        out += `${pad}- ${block(item, depth + 1).slice(pad.length + INDENT.length)}`;
      } else {
        out += `${pad}- ${scalar(item, depth + 1)}\n`;
      }
    }
    return out;
  }
  for (const [key, item] of Object.entries(value)) {
    const k = quoteIfNeeded(key);
    if (isCollection(item) && !isEmpty(item)) {
      // Sequences under a key are indented one level, the style cloud-init's docs use.
      out += `${pad}${k}:\n${block(item, depth + 1)}`;
    } else {
      out += `${pad}${k}: ${scalar(item, depth + 1)}\n`;
    }
  }
  return out;
}

/** A scalar, or an empty collection in flow style; `depth` is where a literal block's lines go. */
function scalar(value: YamlValue, depth: number): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    // Integers only: YAML 1.1 reads `1e+21` as a string, and our documents need no floats.
    if (!Number.isSafeInteger(value)) throw new RangeError(`cannot emit ${String(value)} as YAML`);
    return String(value);
  }
  if (typeof value === "string") {
    return value.includes("\n") ? literalOrQuoted(value, depth) : quoteIfNeeded(value);
  }
  return Array.isArray(value) ? "[]" : "{}";
}

/** Words YAML 1.1 resolves to booleans or null, in any of their spellings. */
const SPECIAL = /^(?:y|yes|n|no|true|false|on|off|null|~)$/i;
/** Plain scalars we allow: a letter or `/_` first, then no space, colon, `#` or quote. */
const PLAIN = /^[A-Za-z_/][A-Za-z0-9_./@+=,-]*$/;

/** The string as a plain scalar when it cannot be misread, else double-quoted. */
export function quoteIfNeeded(text: string): string {
  return PLAIN.test(text) && !SPECIAL.test(text) ? text : doubleQuoted(text);
}

/** YAML double-quoted form; escapes all but printable ASCII and safe printable Unicode. */
export function doubleQuoted(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"' || char === "\\") out += `\\${char}`;
    else if (code >= 0x20 && code <= 0x7e) out += char;
    else if (char === "\n") out += "\\n";
    else if (char === "\t") out += "\\t";
    else if (isSafeUnicode(code)) out += char;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += `\\U${code.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/** Printable for PyYAML and not a YAML 1.1 line break (U+2028/9) or BOM. */
function isSafeUnicode(code: number): boolean {
  if (code >= 0xa0 && code <= 0xd7ff) return code !== 0x2028 && code !== 0x2029;
  if (code >= 0xe000 && code <= 0xfffd) return code !== 0xfeff;
  return code >= 0x10000 && code <= 0x10ffff;
}

/**
 * A literal block keeps every character as written, so it is used only when each line is
 * printable without escapes, and the first line neither starts with a space (that would need
 * an indentation indicator) nor is empty. Chomping: `|-` no final newline, `|` one, `|+` more.
 */
function literalOrQuoted(text: string, depth: number): string {
  const lines = text.split("\n");
  const printable = [...text].every((c) => {
    const code = c.codePointAt(0) ?? 0;
    return c === "\n" || c === "\t" || (code >= 0x20 && code <= 0x7e) || isSafeUnicode(code);
  });
  const first = lines[0] ?? "";
  if (!printable || first === "" || first.startsWith(" ") || first.startsWith("\t")) {
    return doubleQuoted(text);
  }
  let trailing = 0;
  while (lines.length > 1 && lines[lines.length - 1] === "") {
    lines.pop();
    trailing++;
  }
  const chomp = trailing === 0 ? "-" : trailing === 1 ? "" : "+";
  const pad = INDENT.repeat(depth);
  const body = lines.map((line) => (line === "" ? "" : pad + line)).join("\n");
  return `|${chomp}\n${body}${"\n".repeat(Math.max(trailing - 1, 0))}`;
}
