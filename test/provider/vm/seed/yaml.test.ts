import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkYaml, emitYaml, type YamlValue } from "../../../../provider/vm/seed/yaml.js";
import { pyYamlLoad } from "./pyyaml.js";
import { INVALID, LENIENT, VALID } from "./yaml-corpus.js";

/** Values and the bytes 0.1.0's emitter wrote for them (see yaml-golden.json's note). */
const GOLDEN = JSON.parse(readFileSync(join(__dirname, "yaml-golden.json"), "utf8")) as {
  readonly note: string;
  readonly cases: readonly { value: YamlValue; yaml: string }[];
};

describe("yaml", () => {
  describe("emitYaml", () => {
    it("writes block mappings and sequences the way cloud-init's docs do", () => {
      expect(
        emitYaml(
          {
            hostname: "web-1",
            packages: ["nginx", "curl"],
            users: [{ name: "ops", groups: ["adm", "sudo"], lock_passwd: true }],
            write_files: [{ path: "/etc/motd", content: "hello\nworld\n", permissions: "0644" }],
            empty: [],
            nothing: null,
          },
          "#cloud-config",
        ),
      ).toBe(
        [
          "#cloud-config",
          "hostname: web-1",
          "packages:",
          "  - nginx",
          "  - curl",
          "users:",
          "  - name: ops",
          "    groups:",
          "      - adm",
          "      - sudo",
          "    lock_passwd: true",
          "write_files:",
          "  - path: /etc/motd",
          "    content: |",
          "      hello",
          "      world",
          '    permissions: "0644"',
          "empty: []",
          "nothing: null",
          "",
        ].join("\n"),
      );
    });

    it("quotes every string YAML 1.1 would read as something else, keys too", () => {
      const strings = [
        "yes",
        "No",
        "on",
        "~",
        "null",
        "",
        "0755",
        "1:30",
        "52:54:00:12:34:56",
        "a: b",
        "#x",
        "-x",
        " x",
        "--now",
      ];
      expect(emitYaml(strings)).toBe(strings.map((s) => `- ${JSON.stringify(s)}\n`).join(""));
      expect(emitYaml({ yes: 1, "a b": 2 })).toBe('"yes": 1\n"a b": 2\n');
      expect(emitYaml(["nginx", "/etc/hosts", "ssh-ed25519", "ALL=(ALL)"])).toBe(
        '- nginx\n- /etc/hosts\n- ssh-ed25519\n- "ALL=(ALL)"\n',
      );
    });

    it("escapes control characters, line separators and the BOM", () => {
      expect(emitYaml({ a: 'a"\\\t\r\u0085\u2028\ufeff\u0000\u007f\u0080é😀' })).toBe(
        'a: "a\\"\\\\\\t\\u000d\\u0085\\u2028\\ufeff\\u0000\\u007f\\u0080é😀"\n',
      );
    });

    it("chooses the literal block's chomping from the trailing newlines", () => {
      expect(emitYaml({ a: "x\ny", b: "x\ny\n", c: "x\ny\n\n" })).toBe(
        "a: |-\n  x\n  y\nb: |\n  x\n  y\nc: |+\n  x\n  y\n\n",
      );
    });

    it("double-quotes multi-line text a literal block cannot hold as written", () => {
      expect(emitYaml({ a: " x\ny", b: "\nx", c: "x\n\u0001" })).toBe(
        'a: " x\\ny"\nb: "\\nx"\nc: "x\\n\\u0001"\n',
      );
    });

    it("rejects a number that is not a safe integer, however deep", () => {
      expect(() => emitYaml({ a: [{ b: 1.5 }] })).toThrow("cannot emit 1.5 as YAML");
    });

    it("writes the bytes 0.1.0 wrote, so seed names and instance-ids stay", () => {
      expect(GOLDEN.cases.length).toBeGreaterThan(300);
      const differ = GOLDEN.cases.filter(({ value, yaml }) => emitYaml(value) !== yaml);
      expect(
        differ.map(({ value, yaml }) => ({ value, want: yaml, got: emitYaml(value) })),
      ).toEqual([]);
    });

    it("round-trips random values through PyYAML unchanged", () => {
      const values = fc.sample(yamlValue, { numRuns: 400, seed: 3 });
      const loaded = pyYamlLoad(values.map((v) => emitYaml(v)));
      values.forEach((value, i) => {
        expect({ yaml: emitYaml(value), got: loaded[i] }).toEqual({
          yaml: emitYaml(value),
          got: { ok: true, value },
        });
      });
    });
  });

  describe("checkYaml", () => {
    /** Each document's verdicts, PyYAML's and ours, next to the document for a readable diff. */
    const verdicts = (docs: readonly string[]) => {
      const py = pyYamlLoad(docs);
      return docs.map((doc, i) => ({ doc, py: py[i]?.ok, ours: checkYaml(doc).ok }));
    };

    it("accepts every valid corpus document, as PyYAML does", () => {
      expect(verdicts(VALID)).toEqual(VALID.map((doc) => ({ doc, py: true, ours: true })));
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
      expect(verdicts(LENIENT)).toEqual(LENIENT.map((doc) => ({ doc, py: false, ours: true })));
    });

    it("rejects nothing that PyYAML loads", () => {
      const all = verdicts(fc.sample(yamlText, { numRuns: 600, seed: 7 }));
      expect(all.filter(({ py }) => py).length).toBeGreaterThan(100);
      expect(all.filter(({ py, ours }) => py && !ours)).toEqual([]);
    });

    it("never repeats the document's text in its message", () => {
      const secret = "hunter2-s3cret";
      for (const doc of [
        `a: b: ${secret}\n`,
        `a: "${secret}\n`,
        `a: [${secret}\n`,
        `a:\n  - ${secret}\n b: 1\n`,
      ]) {
        const result = checkYaml(doc);
        expect({ doc, ok: result.ok }).toEqual({ doc, ok: false });
        expect(JSON.stringify(result)).not.toContain("s3cret");
      }
    });

    it("tells a mapping from an empty document and from other roots", () => {
      expect(checkYaml("#cloud-config\nusers:\n- name: ops\n")).toEqual({ ok: true, root: "map" });
      expect(checkYaml("")).toEqual({ ok: true, root: "null" });
      expect(checkYaml("#cloud-config\n")).toEqual({ ok: true, root: "null" });
      expect(checkYaml("- a\n")).toEqual({ ok: true, root: "other" });
      expect(checkYaml("just text\n")).toEqual({ ok: true, root: "other" });
    });

    it("accepts whatever the emitter writes, as a mapping when it wrote one", () => {
      fc.assert(
        fc.property(fc.dictionary(fc.string({ maxLength: 6 }), yamlValue), (value) => {
          expect(checkYaml(emitYaml(value))).toEqual({ ok: true, root: "map" });
        }),
        { numRuns: 200, seed: 11 },
      );
    });
  });
});

const { tree: yamlValue } = fc.letrec<{ tree: YamlValue; leaf: YamlValue }>((tie) => ({
  leaf: fc.oneof(
    fc.string({ unit: "binary", maxLength: 16 }),
    fc.string({
      unit: fc.constantFrom("a", " ", "\n", "\t", ":", "#", "-", "'", '"', "\\"),
      maxLength: 16,
    }),
    fc.constantFrom(
      "yes",
      "0755",
      "1e3",
      "0x1F",
      ".inf",
      "2001-12-14",
      "= ",
      "!tag",
      "&a",
      "*a",
      "|",
      ">",
    ),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  ),
  tree: fc.oneof(
    { depthSize: "small" },
    tie("leaf"),
    fc.array(tie("tree"), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: "binary", maxLength: 6 }), tie("tree"), { maxKeys: 4 }),
  ),
}));

/** Short texts from YAML's indicator characters, mostly broken, some not. */
const yamlText = fc.string({
  unit: fc.constantFrom(
    "a",
    "b: ",
    "- ",
    " ",
    "  ",
    "\n",
    "\r",
    "\u2028",
    ":",
    "#",
    "'",
    '"',
    "[",
    "]",
    "{",
    "}",
    ", ",
    "&x ",
    "*x",
    "!t ",
    "|\n",
    ">\n",
    "? ",
    "\\",
    "---\n",
    "...\n",
    "\t",
    "'it''s'",
    "!!str ",
    "<<: ",
  ),
  maxLength: 12,
});
