/**
 * A YAML checker for user-supplied `#cloud-config` text, so a broken document fails in `check`
 * instead of silently at first boot. We ship no YAML library, so this is a small recursive
 * parser for the YAML that cloud-configs are written in, returning the document's shape.
 *
 * Why a checker and not a full parser: rejecting valid YAML would block a working config, so
 * the rule is *reject only what PyYAML (cloud-init's loader) rejects too*. Anything outside the
 * subset below is passed through unchecked (`root: "unchecked"`), never rejected.
 *
 * The subset: block mappings and sequences (including compact `- key: v` and a sequence at its
 * key's indentation), plain / single- / double-quoted scalars over several lines, literal and
 * folded block scalars with indicators, flow `[…]` and `{…}`, comments, one optional `---`,
 * anchors, aliases and tags (tags are skipped). Not checked: `?` complex keys, directives.
 * Errors it reports, with a 1-based line: tabs in indentation, bad indentation, a key inside a
 * plain value (`a: b: c`), an unterminated quote or flow collection, a bad escape, a character
 * that cannot start a token, an undefined alias, a second document, non-printable characters.
 */

import {
  Cursor,
  isFlowIndicator,
  isWsOrEnd,
  NULL,
  Unsupported,
  YamlError,
  type YamlCheck,
  type YamlNode,
} from "./yaml-cursor.js";

export type { YamlCheck, YamlNode };

const NOT_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\ud800-\udfff]/;

/** Checks `text` as one YAML document. Never throws. */
export function checkYaml(text: string): YamlCheck {
  const source = text.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n");
  const bad = NOT_PRINTABLE.exec(source);
  if (bad) {
    const line = source.slice(0, bad.index).split("\n").length;
    const code = (bad[0].codePointAt(0) ?? 0).toString(16).padStart(4, "0");
    return { ok: false, line, message: `special character U+${code} is not allowed` };
  }
  try {
    return { ok: true, root: new Parser(source).document() };
  } catch (error) {
    if (error instanceof YamlError) return { ok: false, line: error.line, message: error.message };
    if (error instanceof Unsupported)
      return { ok: true, root: "unchecked", construct: error.message };
    throw error;
  }
}
class Parser extends Cursor {
  document(): YamlNode {
    this.skipToContent();
    if (this.peek() === "%") throw new Unsupported("a directive");
    let root: YamlNode = NULL;
    if (this.atMarker("---")) {
      this.pos += 3;
      this.skipSpaces();
      if (!this.atLineEnd()) root = this.inlineNode(-1, false);
      this.skipToContent();
    }
    if (root === NULL && !this.atEnd() && !this.atMarker("---") && !this.atMarker("...")) {
      root = this.blockNode(-1);
      this.skipToContent();
    }
    if (this.atMarker("...")) {
      this.pos += 3;
      this.skipToContent();
    }
    if (this.atMarker("---")) this.fail("expected a single document, but found another document");
    if (!this.atEnd()) this.fail("unexpected content after the document");
    return root;
  }

  // --- block structure -------------------------------------------------------------------

  /** A node starting at the current position, which is on a column greater than `parentCol`. */
  private blockNode(parentCol: number): YamlNode {
    const col = this.col();
    this.properties();
    if (this.atLineEnd()) {
      this.skipToContent();
      return !this.atEnd() && this.col() > parentCol ? this.blockNode(parentCol) : NULL;
    }
    if (this.peek() === "-" && isWsOrEnd(this.peek(1))) return this.blockSeq(this.col());
    if (this.peek() === "?" && isWsOrEnd(this.peek(1))) throw new Unsupported("a complex key (?)");
    if (this.keyEnd() !== undefined) return this.blockMap(this.col());
    return this.inlineNode(Math.min(parentCol, col - 1), true);
  }

  private blockSeq(col: number): YamlNode {
    const items: YamlNode[] = [];
    for (;;) {
      this.pos += 1;
      this.skipSpaces();
      if (this.atLineEnd()) {
        this.skipToContent();
        items.push(!this.atEnd() && this.col() > col ? this.blockNode(col) : NULL);
      } else {
        items.push(this.blockNode(col));
      }
      // A sequence at its key's indentation ends at the next key; whoever is left holding a
      // line that is neither reports it.
      if (!this.nextEntry(col) || this.peek() !== "-" || !isWsOrEnd(this.peek(1))) {
        return { kind: "seq", items };
      }
    }
  }

  private blockMap(col: number): YamlNode {
    const entries: (readonly [YamlNode, YamlNode])[] = [];
    for (;;) {
      const end = this.keyEnd();
      if (end === undefined) {
        if (this.peek() === "-" && isWsOrEnd(this.peek(1))) {
          this.fail("a sequence entry (- ) is not allowed here: indent it under a key");
        }
        this.fail("expected a mapping key (key: value)");
      }
      const key = this.keyNode();
      this.pos = end;
      entries.push([key, this.mapValue(col)]);
      if (!this.nextEntry(col)) return { kind: "map", entries };
    }
  }

  private mapValue(col: number): YamlNode {
    this.skipSpaces();
    if (this.atLineEnd()) {
      this.skipToContent();
      if (this.atEnd() || this.atMarker("---") || this.atMarker("...")) return NULL;
      if (this.col() > col) return this.blockNode(col);
      if (this.col() === col && this.peek() === "-" && isWsOrEnd(this.peek(1))) {
        return this.blockSeq(col);
      }
      return NULL;
    }
    return this.inlineNode(col, true);
  }

  /** After an entry: true when the next content is another entry of the collection at `col`. */
  private nextEntry(col: number): boolean {
    this.skipToContent();
    if (this.atEnd() || this.atMarker("---") || this.atMarker("...")) return false;
    const c = this.col();
    if (c > col) this.fail("bad indentation: this line is indented more than the entries above");
    return c === col;
  }

  // --- scalars and flow ------------------------------------------------------------------

  /** A value on the current line (it may continue on later lines). */
  private inlineNode(parentCol: number, blockContext: boolean): YamlNode {
    this.properties();
    if (this.atLineEnd()) {
      this.skipToContent();
      return !this.atEnd() && this.col() > parentCol ? this.blockNode(parentCol) : NULL;
    }
    const c = this.peek();
    let node: YamlNode;
    if (c === "|" || c === ">") return this.blockScalar(parentCol);
    if (c === "-" && isWsOrEnd(this.peek(1)))
      this.fail("a sequence entry (- ) is not allowed here");
    if (c === "[" || c === "{") node = this.flow();
    else if (c === "'" || c === '"') node = this.quoted();
    else if (c === "*") node = this.alias();
    else return this.plain(parentCol, blockContext);
    this.skipSpaces();
    if (this.peek() === ":" && isWsOrEnd(this.peek(1)))
      this.fail("a mapping value is not allowed here");
    if (!this.atLineEnd()) this.fail(`unexpected ${JSON.stringify(this.peek())} after the value`);
    return node;
  }

  private plain(parentCol: number, blockContext: boolean): YamlNode {
    const first = this.peek();
    if (",[]{}%@`".includes(first))
      this.fail(`found character ${JSON.stringify(first)} that cannot start any token`);
    let text = this.plainLine();
    if (!blockContext) return { kind: "scalar", text };
    for (;;) {
      const save = this.pos;
      this.skipToContent(false);
      if (
        this.atEnd() ||
        this.col() <= parentCol ||
        this.peek() === "#" ||
        this.atMarker("---") ||
        this.atMarker("...")
      ) {
        this.pos = save;
        return { kind: "scalar", text };
      }
      text += ` ${this.plainLine()}`;
    }
  }

  /** The rest of a plain scalar's line, up to a comment; a `: ` inside is an error. */
  private plainLine(): string {
    const start = this.pos;
    for (;;) {
      const c = this.peek();
      if (c === "\n" || c === "") break;
      if ((c === " " || c === "\t") && this.peek(1) === "#") break;
      if (c === ":" && isWsOrEnd(this.peek(1))) this.fail("a mapping value is not allowed here");
      this.pos++;
    }
    const text = this.src.slice(start, this.pos).trimEnd();
    this.skipSpaces();
    return text;
  }

  private alias(): YamlNode {
    this.pos++;
    const name = this.anchorName();
    if (!this.anchors.has(name)) this.fail(`found undefined alias ${JSON.stringify(name)}`);
    return { kind: "scalar", text: `*${name}` };
  }

  private flow(): YamlNode {
    const open = this.peek();
    const close = open === "[" ? "]" : "}";
    const line = this.line();
    this.pos++;
    const items: YamlNode[] = [];
    const entries: (readonly [YamlNode, YamlNode])[] = [];
    for (;;) {
      this.skipToContent();
      if (this.atEnd()) throw new YamlError(line, `unterminated flow collection ${open}`);
      if (this.peek() === close) {
        this.pos++;
        return open === "[" ? { kind: "seq", items } : { kind: "map", entries };
      }
      if (this.peek() === "?" && isWsOrEnd(this.peek(1)))
        throw new Unsupported("a complex key (?)");
      const key = this.flowNode();
      this.skipToContent();
      let value: YamlNode | undefined;
      if (this.peek() === ":") {
        this.pos++;
        this.skipToContent();
        value = this.peek() === "," || this.peek() === close ? NULL : this.flowNode();
        this.skipToContent();
      }
      if (open === "{") entries.push([key, value ?? NULL]);
      else items.push(value === undefined ? key : { kind: "map", entries: [[key, value]] });
      if (this.peek() === ",") this.pos++;
      else if (this.peek() !== close) {
        if (this.atEnd()) throw new YamlError(line, `unterminated flow collection ${open}`);
        this.fail(`expected ',' or '${close}' in a flow collection`);
      }
    }
  }

  private flowNode(): YamlNode {
    this.properties();
    const c = this.peek();
    if (c === "[" || c === "{") return this.flow();
    if (c === "'" || c === '"') return this.quoted();
    if (c === "*") return this.alias();
    if (c === "" || ",]}%@`".includes(c))
      this.fail(`found character ${JSON.stringify(c)} that cannot start any token`);
    const start = this.pos;
    for (;;) {
      const ch = this.peek();
      if (ch === "" || ch === "\n" || isFlowIndicator(ch)) break;
      if (ch === ":" && (isWsOrEnd(this.peek(1)) || isFlowIndicator(this.peek(1)))) break;
      if ((ch === " " || ch === "\t") && this.peek(1) === "#") break;
      this.pos++;
    }
    return { kind: "scalar", text: this.src.slice(start, this.pos).trim() };
  }

  // --- keys, properties, positions -------------------------------------------------------

  /** If a simple key starts here (`key:`, `"key":`), the position just after its colon. */
  private keyEnd(): number | undefined {
    const save = this.pos;
    try {
      const c = this.peek();
      if (c === "[" || c === "{") return undefined;
      if (c === "'" || c === '"') {
        const line = this.line();
        this.quoted();
        if (this.line() !== line) return undefined;
        this.skipSpaces();
      } else {
        while (!this.atLineEnd() && !(this.peek() === ":" && isWsOrEnd(this.peek(1)))) this.pos++;
      }
      return this.peek() === ":" && isWsOrEnd(this.peek(1)) ? this.pos + 1 : undefined;
    } catch (error) {
      if (error instanceof YamlError) return undefined;
      throw error;
    } finally {
      this.pos = save;
    }
  }

  private keyNode(): YamlNode {
    if (this.peek() === "'" || this.peek() === '"') return this.quoted();
    if (this.peek() === "*") return this.alias();
    const start = this.pos;
    while (!(this.peek() === ":" && isWsOrEnd(this.peek(1)))) this.pos++;
    return { kind: "scalar", text: this.src.slice(start, this.pos).trim() };
  }

  /** Skips `&anchor` and `!tag` properties, remembering anchors. */
  private properties(): void {
    for (;;) {
      if (this.peek() === "&") {
        this.pos++;
        this.anchors.add(this.anchorName());
      } else if (this.peek() === "!") {
        while (!isWsOrEnd(this.peek())) this.pos++;
      } else return;
      this.skipSpaces();
    }
  }

  private anchorName(): string {
    const start = this.pos;
    while (!isWsOrEnd(this.peek()) && !isFlowIndicator(this.peek())) this.pos++;
    if (this.pos === start) this.fail("expected an anchor or alias name");
    return this.src.slice(start, this.pos);
  }

  /** Skips blank lines and comments; a tab in a line's indentation is an error. */
}
