/**
 * YAML for the seed, on the `yaml` package: the emitter for the documents we generate and the
 * checker for a user's `#cloud-config`. cloud-init loads both with PyYAML, a YAML 1.1 loader,
 * so what we write must read back identically there, and what we reject PyYAML must reject too.
 * The tests hold both against PyYAML; docs/cloud-init.md and docs/design.md give the rules.
 */
import type * as Yaml from "yaml";
import type { ScalarTag, Tags } from "yaml";
import type * as YamlUtil from "yaml/util";

/**
 * The `yaml` package, loaded on first use: it is ~70 modules, and the provider process of a
 * refresh or a preview reaches this file (through the `cloudInit` schema) without ever writing
 * a seed or checking a `#cloud-config`. A plain `require`, so it stays lazy in the CommonJS build.
 */
let loaded: { yaml: typeof Yaml; seedTags: (tags: Tags) => Tags } | undefined;
function yamlPackage(): NonNullable<typeof loaded> {
  if (loaded !== undefined) return loaded;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const yaml = require("yaml") as typeof Yaml;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { stringTag } = require("yaml/util") as typeof YamlUtil;
  const seedString = seedStringTag(stringTag);
  loaded = { yaml, seedTags: (tags) => tags.map((tag) => (tag === stringTag ? seedString : tag)) };
  return loaded;
}

export type YamlValue =
  string | number | boolean | null | readonly YamlValue[] | { readonly [key: string]: YamlValue };

/** Words YAML 1.1 resolves to booleans or null, in any of their spellings. */
const SPECIAL = /^(?:y|yes|n|no|true|false|on|off|null|~)$/i;
/** Plain scalars we write: a letter or `/_` first, then no space, colon, `#` or quote. */
const PLAIN = /^[A-Za-z_/][A-Za-z0-9_./@+=,-]*$/;

/**
 * How a string is written; the `yaml` package lays out everything else. Its own choice follows
 * YAML 1.2 (it writes `0755`, `--now` and `yes` plain, leaves DEL, C1 controls, U+2028/9 and the
 * BOM raw inside double quotes, which PyYAML refuses or reads as line breaks, and chomps a
 * literal block ending in a blank-looking line differently), so strings keep the rule the seed
 * has always used: plain only when nothing else can be read, a literal block for printable
 * multi-line text, else double-quoted with every unsafe character escaped. Keeping the rule
 * keeps the bytes, and the bytes name the seed ISO and the instance-id.
 */
function seedStringTag(stringTag: ScalarTag): ScalarTag {
  return {
    ...stringTag,
    stringify(item, ctx) {
      const text = String(item.value);
      if (PLAIN.test(text) && !SPECIAL.test(text)) return text;
      if (!ctx.implicitKey && isLiteralSafe(text)) return literalBlock(text, ctx.indent || "  ");
      return doubleQuoted(text);
    },
  };
}

/**
 * Renders `value` as a YAML document in block style (sequences indented under their key, as
 * cloud-init's docs write them), with a trailing newline and an optional first line.
 */
export function emitYaml(value: YamlValue, header?: string): string {
  assertIntegers(value);
  const { yaml, seedTags } = yamlPackage();
  const body = new yaml.Document(value, { customTags: seedTags }).toString({ lineWidth: 0 });
  return header === undefined ? body : `${header}\n${body}`;
}

/** Integers only: YAML 1.1 reads `1e+21` as a string, and our documents need no floats. */
function assertIntegers(value: YamlValue): void {
  if (typeof value === "number" && !Number.isSafeInteger(value)) {
    throw new RangeError(`cannot emit ${String(value)} as YAML`);
  }
  if (typeof value === "object" && value !== null) Object.values(value).forEach(assertIntegers);
}

/** YAML double-quoted form; escapes all but printable ASCII and safe printable Unicode. */
function doubleQuoted(text: string): string {
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
 * A literal block keeps every character as written, so it is used only for multi-line text
 * whose characters all print without escapes and whose first line is neither empty nor starts
 * with a space or tab (either would need an indentation indicator).
 */
function isLiteralSafe(text: string): boolean {
  if (!text.includes("\n") || /^(?:[ \t]|\n)/.test(text)) return false;
  return [...text].every((c) => {
    const code = c.codePointAt(0) ?? 0;
    return c === "\n" || c === "\t" || (code >= 0x20 && code <= 0x7e) || isSafeUnicode(code);
  });
}

/** A literal block with its lines at `pad`. Chomping: `|-` no final newline, `|` one, `|+` more. */
function literalBlock(text: string, pad: string): string {
  const lines = text.split("\n");
  let trailing = 0;
  while (lines.length > 1 && lines[lines.length - 1] === "") {
    lines.pop();
    trailing++;
  }
  const chomp = trailing === 0 ? "-" : trailing === 1 ? "" : "+";
  const body = lines.map((line) => (line === "" ? "" : pad + line)).join("\n");
  return `|${chomp}\n${body}${"\n".repeat(Math.max(trailing - 1, 0))}`;
}

export type YamlCheck =
  | { readonly ok: true; readonly root: "map" | "null" | "other" }
  | { readonly ok: false; readonly line: number; readonly message: string };

/** What PyYAML's reader refuses before parsing: characters outside YAML 1.1's printable set. */
const NOT_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\ud800-\udfff]/;

/**
 * Checks `text` as one YAML 1.1 document, so a broken `#cloud-config` fails in `check` instead
 * of at first boot. Never throws. Messages carry the line and the parser's reason, never the
 * document's text: user-data is secret.
 */
export function checkYaml(original: string): YamlCheck {
  // PyYAML skips a leading BOM, and also breaks lines at a lone CR, NEL, U+2028 and U+2029; the
  // package trips on the first in places and does neither of the rest.
  const text = original.replace(/^\ufeff/, "").replace(/\r\n?|[\x85\u2028\u2029]/g, "\n");
  const bad = NOT_PRINTABLE.exec(text);
  if (bad) {
    const code = (bad[0].codePointAt(0) ?? 0).toString(16).padStart(4, "0");
    return {
      ok: false,
      line: lineAt(text, bad.index),
      message: `special character U+${code} is not allowed`,
    };
  }
  // Not strict: the package then lets pass what YAML 1.2 forbids but reads unambiguously, such
  // as a comment right after a quoted value (`"x"# note`), which PyYAML loads.
  const { parseDocument, visit, isMap } = yamlPackage().yaml;
  const doc = parseDocument(text, {
    version: "1.1",
    strict: false,
    uniqueKeys: false,
    prettyErrors: false,
  });
  const error = doc.errors[0];
  if (error !== undefined) {
    const message = error.code === "MULTIPLE_DOCS" ? SINGLE_DOCUMENT : error.message;
    return { ok: false, line: lineAt(text, error.pos[0]), message };
  }
  // The package resolves aliases only when converting to values, so an unknown one is looked
  // for here, where its position is still known.
  let unresolved: number | undefined;
  visit(doc, {
    Alias(_, alias) {
      if (alias.resolve(doc) !== undefined) return undefined;
      unresolved = alias.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  if (unresolved !== undefined) {
    return { ok: false, line: lineAt(text, unresolved), message: UNKNOWN_ALIAS };
  }
  const root = doc.contents;
  return { ok: true, root: root === null ? "null" : isMap(root) ? "map" : "other" };
}

const SINGLE_DOCUMENT = "expected a single document, but found another (---)";
const UNKNOWN_ALIAS = "an alias (*name) refers to no anchor (&name) defined before it";

function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}
