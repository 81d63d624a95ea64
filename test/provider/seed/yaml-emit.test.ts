import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  doubleQuoted,
  emitYaml,
  quoteIfNeeded,
  type YamlValue,
} from "../../../provider/seed/yaml-emit.js";
import { pyYamlLoad } from "./pyyaml.js";

describe("yaml-emit", () => {
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

  it("quotes every string YAML 1.1 would read as something else", () => {
    expect(
      [
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
      ].map(quoteIfNeeded),
    ).toEqual([
      '"yes"',
      '"No"',
      '"on"',
      '"~"',
      '"null"',
      '""',
      '"0755"',
      '"1:30"',
      '"52:54:00:12:34:56"',
      '"a: b"',
      '"#x"',
      '"-x"',
      '" x"',
    ]);
    expect(["nginx", "/etc/hosts", "ssh-ed25519", "ALL=(ALL)"].map(quoteIfNeeded)).toEqual([
      "nginx",
      "/etc/hosts",
      "ssh-ed25519",
      '"ALL=(ALL)"',
    ]);
  });

  it("escapes control characters, line separators and the BOM", () => {
    expect(doubleQuoted('a"\\\t\r\u0085\u2028\ufeff\u0000é😀')).toBe(
      '"a\\"\\\\\\t\\u000d\\u0085\\u2028\\ufeff\\u0000é😀"',
    );
  });

  it("chooses the literal block's chomping from the trailing newlines", () => {
    expect(emitYaml({ a: "x\ny", b: "x\ny\n", c: "x\ny\n\n" })).toBe(
      "a: |-\n  x\n  y\nb: |\n  x\n  y\nc: |+\n  x\n  y\n\n",
    );
  });

  it("rejects a number that is not a safe integer", () => {
    expect(() => emitYaml({ a: 1.5 })).toThrow("cannot emit 1.5 as YAML");
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
