import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../e2e/support/paths";

interface PackEntry {
  readonly name: string;
  readonly version: string;
  readonly files: { readonly path: string }[];
}

interface Manifest {
  readonly exports: Record<string, string | { types?: string; default?: string }>;
  readonly bin: Record<string, string>;
  readonly types: string;
  readonly main: string;
}

// The e2e global setup has just built dist/, so this is what `npm publish` would ship.
describe("npm pack", () => {
  let files: string[];
  let manifest: Manifest;
  beforeAll(() => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--silent"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    const [entry] = JSON.parse(out) as PackEntry[];
    files = (entry?.files ?? []).map((f) => f.path).sort();
    manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));
  });

  it("ships the manifest, README, LICENSE and CHANGELOG at the top level", () => {
    expect(files.filter((f) => !f.includes("/"))).toEqual([
      "CHANGELOG.md",
      "LICENSE",
      "README.md",
      "package.json",
    ]);
  });

  it("ships nothing but those and dist/", () => {
    expect(files.filter((f) => f.includes("/") && !f.startsWith("dist/"))).toEqual([]);
  });

  it("ships every file the exports map, main, types and bin point at", () => {
    const targets = [manifest.main, manifest.types, ...Object.values(manifest.bin)];
    for (const [key, target] of Object.entries(manifest.exports)) {
      if (typeof target === "string") {
        if (key !== "./package.json") targets.push(target);
      } else {
        targets.push(...[target.types, target.default].filter((t): t is string => !!t));
      }
    }
    const missing = targets.map((t) => path.posix.normalize(t)).filter((t) => !files.includes(t));
    expect(missing).toEqual([]);
  });

  it("ships the code with its declarations for the provider, components, simulator and CLI", () => {
    for (const entry of ["provider", "components", "simulator", "cli"]) {
      expect(files).toContain(`dist/${entry}/index.js`);
      expect(files).toContain(`dist/${entry}/index.d.ts`);
    }
    const code = files.filter((f) => f.endsWith(".js"));
    const missingTypes = code.filter((f) => !files.includes(f.replace(/\.js$/, ".d.ts")));
    expect(missingTypes).toEqual([]);
  });

  it("ships no tests, fixtures, TypeScript sources, tools, benchmarks or examples", () => {
    const forbidden = files.filter(
      (f) =>
        /(^|\/)(test|tests|fixtures|__fixtures__|\.tools|tools|bench|examples|\.e2e|\.demo)\//.test(
          f,
        ) ||
        /\.(test|spec)\.[cm]?[jt]s/.test(f) ||
        (/\.[cm]?ts$/.test(f) && !/\.d\.[cm]?ts$/.test(f)) ||
        f.endsWith(".tsbuildinfo") ||
        f.endsWith(".tgz"),
    );
    expect(forbidden).toEqual([]);
  });
});
