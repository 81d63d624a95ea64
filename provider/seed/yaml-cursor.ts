/**
 * The position-keeping half of the cloud-config YAML checker (yaml-check.ts): a cursor over the
 * text with line and column, comment and blank-line skipping, and the scanners for quoted and
 * block scalars, whose rules do not depend on the block structure around them.
 */

export type YamlNode =
  | { readonly kind: "map"; readonly entries: readonly (readonly [YamlNode, YamlNode])[] }
  | { readonly kind: "seq"; readonly items: readonly YamlNode[] }
  | { readonly kind: "scalar"; readonly text: string }
  | { readonly kind: "null" };

export type YamlCheck =
  | { readonly ok: true; readonly root: YamlNode }
  | { readonly ok: true; readonly root: "unchecked"; readonly construct: string }
  | { readonly ok: false; readonly line: number; readonly message: string };

export class YamlError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(message);
    this.line = line;
  }
}

export class Unsupported extends Error {}
export const NULL: YamlNode = { kind: "null" };
const ESCAPES = new Set('0abt\tnvfre "/\\N_LP');

export const isWsOrEnd = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "";
export const isFlowIndicator = (c: string): boolean => ",[]{}".includes(c) && c !== "";

/** A cursor over one YAML text; the parser extends it. */
export class Cursor {
  protected readonly src: string;
  protected pos = 0;
  protected readonly anchors = new Set<string>();

  constructor(src: string) {
    this.src = src;
  }

  protected quoted(): YamlNode {
    const quote = this.peek();
    const line = this.line();
    this.pos++;
    let text = "";
    for (;;) {
      const c = this.peek();
      if (c === "") throw new YamlError(line, "unterminated quoted string");
      if (
        c === "\n" &&
        (this.src.startsWith("---", this.pos + 1) || this.src.startsWith("...", this.pos + 1)) &&
        isWsOrEnd(this.src[this.pos + 4] ?? "")
      ) {
        this.pos++;
        this.fail("document separator inside a quoted string");
      }
      if (c === quote) {
        if (quote === "'" && this.peek(1) === "'") {
          text += "'";
          this.pos += 2;
          continue;
        }
        this.pos++;
        return { kind: "scalar", text };
      }
      if (c === "\\" && quote === '"') {
        this.escape();
        continue;
      }
      text += c;
      this.pos++;
    }
  }

  protected escape(): void {
    const c = this.peek(1);
    const hex = c === "x" ? 2 : c === "u" ? 4 : c === "U" ? 8 : 0;
    if (hex > 0) {
      const digits = this.src.slice(this.pos + 2, this.pos + 2 + hex);
      if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits))
        this.fail(`bad escape \\${c}${digits}`);
      this.pos += 2 + hex;
    } else if (c === "\n" || ESCAPES.has(c)) {
      this.pos += 2;
    } else {
      this.fail(`unknown escape \\${c} in a double-quoted string`);
    }
  }

  protected blockScalar(parentCol: number): YamlNode {
    const style = this.peek();
    this.pos++;
    let indicator = 0;
    while (/[+\-1-9]/.test(this.peek())) {
      if (/[1-9]/.test(this.peek())) indicator = Number(this.peek());
      this.pos++;
    }
    this.skipSpaces();
    if (!this.atLineEnd())
      this.fail(`expected a comment or a line break after the ${style} header`);
    this.skipLine();
    let indent = indicator > 0 ? Math.max(parentCol, 0) + indicator : 0;
    const lines: string[] = [];
    while (!this.atEnd()) {
      const end = this.src.indexOf("\n", this.pos);
      const lineEnd = end === -1 ? this.src.length : end;
      const raw = this.src.slice(this.pos, lineEnd);
      const spaces = raw.length - raw.replace(/^ */, "").length;
      if (raw.trim() !== "") {
        if (indent === 0) indent = spaces;
        if (spaces < indent || indent <= parentCol) break;
      }
      lines.push(raw.slice(indent));
      this.pos = lineEnd;
      if (end !== -1) this.pos++;
    }
    // Leave the position at the start of the line that ended the block.
    if (!this.atEnd() && this.src[this.pos - 1] !== "\n")
      this.pos = this.src.lastIndexOf("\n", this.pos) + 1;
    return { kind: "scalar", text: lines.join("\n") };
  }

  protected skipToContent(comments = true): void {
    for (;;) {
      this.skipSpaces();
      const c = this.peek();
      if (c === "#" && comments && (this.pos === 0 || isWsOrEnd(this.src[this.pos - 1] ?? "")))
        this.skipLine();
      else if (c === "\n") this.pos++;
      else break;
      const lineStart = this.pos;
      while (this.peek() === " ") this.pos++;
      if (this.peek() === "\t") {
        const rest = this.src
          .slice(this.pos, (this.src.indexOf("\n", this.pos) + 1 || this.src.length + 1) - 1)
          .trim();
        if (rest !== "" && !rest.startsWith("#"))
          this.fail("a tab character is not allowed in indentation");
      }
      this.pos = lineStart;
    }
  }

  protected skipSpaces(): void {
    while (this.peek() === " " || this.peek() === "\t") this.pos++;
  }

  protected skipLine(): void {
    const end = this.src.indexOf("\n", this.pos);
    this.pos = end === -1 ? this.src.length : end + 1;
  }

  protected atLineEnd(): boolean {
    const c = this.peek();
    return c === "\n" || c === "" || (c === "#" && isWsOrEnd(this.src[this.pos - 1] ?? ""));
  }

  protected atMarker(marker: string): boolean {
    return (
      this.col() === 0 &&
      this.src.startsWith(marker, this.pos) &&
      isWsOrEnd(this.src[this.pos + 3] ?? "")
    );
  }

  protected atEnd(): boolean {
    return this.pos >= this.src.length;
  }

  protected peek(offset = 0): string {
    return this.src[this.pos + offset] ?? "";
  }

  protected col(): number {
    return this.pos - (this.src.lastIndexOf("\n", this.pos - 1) + 1);
  }

  protected line(): number {
    let count = 1;
    for (
      let i = this.src.indexOf("\n");
      i !== -1 && i < this.pos;
      i = this.src.indexOf("\n", i + 1)
    )
      count++;
    return count;
  }

  protected fail(message: string): never {
    throw new YamlError(this.line(), message);
  }
}
