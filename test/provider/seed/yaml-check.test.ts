import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkYaml, type YamlNode } from "../../../provider/seed/yaml-check.js";
import { emitYaml, type YamlValue } from "../../../provider/seed/yaml-emit.js";
import { pyYamlLoad } from "./pyyaml.js";
import { INVALID, LENIENT, VALID } from "./yaml-corpus.js";

/** The shape of a document: collections and nulls kept, every scalar reduced to "s". */
function shape(node: YamlNode): unknown {
  switch (node.kind) {
    case "map":
      return node.entries.map(([k, v]) => [shape(k), shape(v)]);
    case "seq":
      return node.items.map(shape);
    case "scalar":
      return "s";
    case "null":
      return null;
  }
}

function valueShape(value: YamlValue): unknown {
  if (value === null) return "s"; // the emitter writes `null`, a plain scalar
  if (Array.isArray(value)) return (value as readonly YamlValue[]).map(valueShape);
  if (typeof value === "object") {
    return Object.entries(value).map(([, v]) => ["s", valueShape(v)]);
  }
  return "s";
}

describe("yaml-check", () => {
  it("accepts every valid corpus document, as PyYAML does", () => {
    const py = pyYamlLoad(VALID);
    VALID.forEach((doc, i) => {
      expect({ doc, py: py[i]?.ok }).toEqual({ doc, py: true });
      const result = checkYaml(doc);
      expect({ doc, ok: result.ok, checked: result.ok && result.root !== "unchecked" }).toEqual({
        doc,
        ok: true,
        checked: true,
      });
    });
  });

  it("rejects every invalid corpus document PyYAML rejects, naming the line", () => {
    const py = pyYamlLoad(INVALID.map(([doc]) => doc));
    INVALID.forEach(([doc, line, message], i) => {
      expect({ doc, py: py[i]?.ok }).toEqual({ doc, py: false });
      expect({ doc, result: checkYaml(doc) }).toEqual({
        doc,
        result: { ok: false, line, message },
      });
    });
  });

  it("passes the documented lenient cases that PyYAML rejects", () => {
    const py = pyYamlLoad(LENIENT);
    LENIENT.forEach((doc, i) => {
      expect(py[i]?.ok).toBe(false);
      expect(checkYaml(doc).ok).toBe(true);
    });
  });

  it("passes a complex key and a directive through unchecked", () => {
    expect(checkYaml("? [a, b]\n: c\n")).toEqual({
      ok: true,
      root: "unchecked",
      construct: "a complex key (?)",
    });
    expect(checkYaml("%YAML 1.1\n---\na: 1\n")).toEqual({
      ok: true,
      root: "unchecked",
      construct: "a directive",
    });
  });

  it("reads a document's shape", () => {
    expect(checkYaml("#cloud-config\nusers:\n- name: ops\n  groups: [adm]\nx:\n")).toEqual({
      ok: true,
      root: {
        kind: "map",
        entries: [
          [
            { kind: "scalar", text: "users" },
            {
              kind: "seq",
              items: [
                {
                  kind: "map",
                  entries: [
                    [
                      { kind: "scalar", text: "name" },
                      { kind: "scalar", text: "ops" },
                    ],
                    [
                      { kind: "scalar", text: "groups" },
                      { kind: "seq", items: [{ kind: "scalar", text: "adm" }] },
                    ],
                  ],
                },
              ],
            },
          ],
          [{ kind: "scalar", text: "x" }, { kind: "null" }],
        ],
      },
    });
  });

  it("reads an empty document and a bare comment as null", () => {
    expect(checkYaml("")).toEqual({ ok: true, root: { kind: "null" } });
    expect(checkYaml("#cloud-config\n")).toEqual({ ok: true, root: { kind: "null" } });
  });

  it("accepts whatever the emitter writes, with the same shape", () => {
    fc.assert(
      fc.property(yamlValue, (value) => {
        const result = checkYaml(emitYaml(value));
        expect(result.ok && result.root !== "unchecked" ? shape(result.root) : result).toEqual(
          valueShape(value),
        );
      }),
      { numRuns: 300, seed: 11 },
    );
  });
});

const { tree: yamlValue } = fc.letrec<{ tree: YamlValue; leaf: YamlValue }>((tie) => ({
  leaf: fc.oneof(
    fc.string({ unit: "binary", maxLength: 12 }),
    fc.constantFrom("yes", "0755", "52:54:00:12:34:56", "- a", "a: b", "#x", "line\nline\n"),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  ),
  tree: fc.oneof(
    { depthSize: "small" },
    tie("leaf"),
    fc.array(tie("tree"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie("tree"), { maxKeys: 4 }),
  ),
}));
