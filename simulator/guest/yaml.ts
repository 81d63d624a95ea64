/**
 * A YAML subset parser for NoCloud meta-data and network-config: block maps, block lists
 * (`- item`, including `- key: value` maps), flow lists of scalars (`[a, b]`), plain, single-
 * and double-quoted scalars, comments, and `true/false/null`/numbers. No anchors, tags,
 * multi-line strings or flow maps; anything else throws YamlError.
 */
export type YamlValue =
  string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

export class YamlError extends Error {}

interface Line {
  readonly indent: number;
  readonly text: string;
  readonly no: number;
}

function stripComment(text: string): string {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(text[i - 1] ?? ""))) return text.slice(0, i);
  }
  return text;
}

export function scalar(raw: string): YamlValue {
  const text = raw.trim();
  if (text.startsWith('"') && text.endsWith('"') && text.length >= 2) {
    return JSON.parse(text) as string;
  }
  if (text.startsWith("'") && text.endsWith("'") && text.length >= 2)
    return text.slice(1, -1).replace(/''/g, "'");
  if (text.startsWith("[") && text.endsWith("]")) {
    const inner = text.slice(1, -1).trim();
    return inner === "" ? [] : inner.split(",").map((item) => scalar(item));
  }
  if (
    text.startsWith("{") ||
    text.startsWith("&") ||
    text.startsWith("*") ||
    text.startsWith("!") ||
    text === "|" ||
    text === ">"
  ) {
    throw new YamlError(`unsupported YAML construct '${text}'`);
  }
  if (/^(true|True|TRUE|yes|on)$/.test(text)) return true;
  if (/^(false|False|FALSE|no|off)$/.test(text)) return false;
  if (/^(null|~|)$/.test(text)) return null;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

function keyValue(text: string): [string, string] | undefined {
  const match = /^("[^"]*"|'[^']*'|[^\s"'#][^:]*?)\s*:(\s+(.*))?$/.exec(text);
  if (match === null) return undefined;
  const key = String(scalar(match[1] ?? ""));
  return [key, match[3] ?? ""];
}

function parseBlock(lines: Line[], start: number, indent: number): [YamlValue, number] {
  const first = lines[start];
  if (first === undefined) return [null, start];
  if (first.text.startsWith("- ") || first.text === "-") {
    const list: YamlValue[] = [];
    let i = start;
    while (i < lines.length) {
      const line = lines[i];
      if (line === undefined || line.indent < indent) break;
      if (line.indent !== indent || !(line.text.startsWith("- ") || line.text === "-")) {
        throw new YamlError(`line ${line.no}: bad indentation in list`);
      }
      const rest = line.text.slice(1).trimStart();
      if (rest === "") {
        const [value, next] = parseBlock(lines, i + 1, lines[i + 1]?.indent ?? indent + 2);
        list.push(value);
        i = next;
      } else if (keyValue(rest) !== undefined) {
        // `- key: value` starts a map whose other keys sit under the first key.
        const inner = indent + (line.text.length - rest.length);
        const synthetic = [
          ...lines.slice(0, i),
          { indent: inner, text: rest, no: line.no },
          ...lines.slice(i + 1),
        ];
        const [value, next] = parseBlock(synthetic, i, inner);
        list.push(value);
        i = next;
      } else {
        list.push(scalar(rest));
        i += 1;
      }
    }
    return [list, i];
  }
  const map: { [key: string]: YamlValue } = {};
  let i = start;
  while (i < lines.length) {
    const line = lines[i];
    if (line === undefined || line.indent < indent) break;
    if (line.indent !== indent) throw new YamlError(`line ${line.no}: bad indentation`);
    const kv = keyValue(line.text);
    if (kv === undefined) throw new YamlError(`line ${line.no}: expected 'key: value'`);
    const [key, rest] = kv;
    if (rest.trim() !== "") {
      map[key] = scalar(rest);
      i += 1;
      continue;
    }
    const next = lines[i + 1];
    const childIndent = next?.indent ?? -1;
    if (
      next !== undefined &&
      (childIndent > indent || (childIndent === indent && next.text.startsWith("-")))
    ) {
      const [value, after] = parseBlock(lines, i + 1, childIndent);
      map[key] = value;
      i = after;
    } else {
      map[key] = null;
      i += 1;
    }
  }
  return [map, i];
}

export function parseYaml(text: string): YamlValue {
  const lines: Line[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    if (raw.includes("\t")) throw new YamlError(`line ${index + 1}: tabs are not allowed`);
    const stripped = stripComment(raw).trimEnd();
    if (stripped.trim() === "" || stripped.trim() === "---") return;
    lines.push({
      indent: stripped.length - stripped.trimStart().length,
      text: stripped.trim(),
      no: index + 1,
    });
  });
  if (lines.length === 0) return null;
  const [value, end] = parseBlock(lines, 0, lines[0]?.indent ?? 0);
  if (end < lines.length) throw new YamlError(`line ${lines[end]?.no ?? 0}: unexpected content`);
  return value;
}
