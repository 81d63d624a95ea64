import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../e2e/support/paths";

/**
 * The CLI and the components reach the provider through two modules only: its public index (what
 * a program imports) and entry.ts (what the CLI and the components ask of it, as functions of
 * what they know). An import of any other provider file ties them to the provider's inside: a
 * state object built by hand, an operation called around its checks, a file that moves.
 */
const DOORS = new Set(["provider/entry", "provider/index"]);
const OUTSIDERS = ["cli", "components"];
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;

/** The provider modules `file` imports, as repository paths without extension. */
function providerImportsOf(file: string, text: string): string[] {
  return [...text.matchAll(SPECIFIER)]
    .map((match) => match[1] ?? "")
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) =>
      path.posix
        .normalize(path.posix.join(path.posix.dirname(file), specifier))
        .replace(/\.js$/, ""),
    )
    .filter((target) => target.startsWith("provider/"));
}

/** Every `file: import` of the given folders that goes through a side door. */
function sideDoors(folders: readonly string[], read: (file: string) => string): string[] {
  return folders.flatMap((folder) =>
    fs
      .readdirSync(path.join(repoRoot, folder), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts"))
      .map((file) => path.posix.join(folder, file.split(path.sep).join("/")))
      .flatMap((file) =>
        providerImportsOf(file, read(file))
          .filter((target) => !DOORS.has(target))
          .map((target) => `${file}: ${target}`),
      ),
  );
}

describe("the provider's doors", () => {
  it("are the only provider modules the CLI and the components import", () => {
    const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), "utf8");
    expect(sideDoors(OUTSIDERS, read)).toEqual([]);
  });

  it("would name a CLI file that imports an operation directly", () => {
    expect(
      providerImportsOf(
        "cli/sweep.ts",
        'import { deleteTemplate } from "../provider/template/delete";\n' +
          'import { deleteMarkedVm } from "../provider/entry";\n' +
          'import type { VmState } from "../provider/state/vm-state.js";',
      ).filter((target) => !DOORS.has(target)),
    ).toEqual(["provider/template/delete", "provider/state/vm-state"]);
  });
});
