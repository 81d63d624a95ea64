import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../e2e/support/paths";

/**
 * No module of the package imports itself back through others: a cycle makes load order matter
 * (a value is `undefined` while its module is still loading) and says two modules are one.
 * Type-only imports count too, since they tie the modules' designs together just the same.
 */
const FOLDERS = ["provider", "cli", "components", "simulator"];
const IMPORT = /^\s*(?:import|export)\b[^'"]*?from\s+["'](\.[^"']+)["']/gm;

function sourceFiles(folder: string): string[] {
  return fs
    .readdirSync(path.join(repoRoot, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => path.join(folder, file));
}

function resolveImport(from: string, specifier: string): string | undefined {
  const base = path.join(path.dirname(from), specifier.replace(/\.js$/, ""));
  for (const candidate of [`${base}.ts`, path.join(base, "index.ts")]) {
    if (fs.existsSync(path.join(repoRoot, candidate))) return candidate;
  }
  return undefined;
}

function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(path.join(repoRoot, file), "utf8");
    const targets = [...text.matchAll(IMPORT)]
      .map((match) => resolveImport(file, match[1] ?? ""))
      .filter((target): target is string => target !== undefined);
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle, each as the path from its first module back to it. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    const at = stack.indexOf(node);
    if (at >= 0) {
      cycles.push([...stack.slice(at), node]);
      return;
    }
    if (done.has(node)) return;
    stack.push(node);
    for (const next of graph.get(node) ?? []) visit(next);
    stack.pop();
    done.add(node);
  };
  for (const node of graph.keys()) visit(node);
  return cycles;
}

describe("imports", () => {
  it("form no cycle in the package's source", () => {
    const graph = importGraph(FOLDERS.flatMap(sourceFiles));
    expect(graph.size).toBeGreaterThan(50);
    expect(cyclesOf(graph).map((cycle) => cycle.join(" → "))).toEqual([]);
  });

  it("would report a cycle of two modules", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["a.ts"]],
    ]);
    expect(cyclesOf(graph)).toEqual([["a.ts", "b.ts", "a.ts"]]);
  });
});
