import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Change } from "../../../../provider/vm/spec/field";
import { FIELDS, FIELD_NAMES, type FieldName } from "../../../../provider/vm/spec/fields";

const ON_CHANGE: Record<Change, string> = {
  replace: "replaces the VM (create before delete)",
  "replace-delete-first": "replaces the VM, deleting the old one first",
  hot: "in place",
  reboot: "in place; a running VM reboots (`rebootPolicy`)",
  setting: "the provider's own setting",
};

function defaultOf(name: FieldName): string {
  const spec = FIELDS[name];
  if ("required" in spec && spec.required) return "required";
  return "default" in spec ? `\`${JSON.stringify(spec.default)}\`` : "—";
}

/** Each input's row as the spec renders it: its cells, in docs/inputs.md's column order. */
function specRows(): string[][] {
  return FIELD_NAMES.map((name) => {
    const spec = FIELDS[name];
    return [
      `\`${name}\``,
      `\`${spec.docType}\``,
      defaultOf(name),
      ON_CHANGE[spec.change],
      spec.doc,
    ];
  });
}

/** The rows of the table under "| Input |", each as its trimmed cells (however it is padded). */
function docRows(doc: string): string[][] {
  const lines = doc.slice(doc.indexOf("| Input |")).split("\n");
  const table = lines.slice(
    0,
    lines.findIndex((line) => !line.startsWith("|")),
  );
  return table.slice(2).map((line) =>
    line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replace(/\\\|/g, "|")),
  );
}

describe("docs/inputs.md", () => {
  it("lists every input as the spec describes it, in its order", () => {
    const doc = readFileSync(join(__dirname, "../../../../docs/inputs.md"), "utf8");
    const expected = specRows()
      .map((row) => `| ${row.map((cell) => cell.replace(/\|/g, "\\|")).join(" | ")} |`)
      .join("\n");
    expect(docRows(doc), `docs/inputs.md's rows should read:\n\n${expected}\n`).toEqual(specRows());
  });
});
