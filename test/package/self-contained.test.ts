import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../e2e/support/paths";

/**
 * The repository speaks for itself: code, docs and tests explain behaviour and reasons, never
 * by pointing at material a maintainer of this repository does not have (a style guide or API
 * reference kept elsewhere, a review report's finding IDs, a folder beside the checkout).
 */
const OUTSIDE_REFERENCE = /STYLE\.md|reference\.md|\.\.\/shared|seed report|\b(?:CR|P|F)\d+\b/;

/**
 * The capture-comparison test and the route-coverage test read recordings and the API schema
 * beside the checkout and say when they skipped; this file names the patterns it looks for.
 */
const ALLOWED = new Set([
  "test/simulator/conformance.int.test.ts",
  "test/simulator/routes/index.test.ts",
  "test/package/self-contained.test.ts",
]);

const TEXT = /\.(?:ts|mts|js|md|sh|json|go)$|^\.ci\//;

function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files"], { cwd: repoRoot, encoding: "utf8" })
    .split("\n")
    .filter((file) => TEXT.test(file) && !file.startsWith("test/provider/vm/state/fixtures/"))
    .filter((file) => file !== "package-lock.json");
}

describe("the repository", () => {
  it("cites no style guide, outside API reference, finding ID or folder beside the checkout", () => {
    const offenders: string[] = [];
    for (const file of trackedFiles()) {
      if (ALLOWED.has(file)) continue;
      const full = path.join(repoRoot, file);
      if (!fs.existsSync(full)) continue;
      fs.readFileSync(full, "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (OUTSIDE_REFERENCE.test(line)) offenders.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it("finds a citation when one is written (the check can fail)", () => {
    expect(OUTSIDE_REFERENCE.test("// closes the seed report's P4")).toBe(true);
    expect(OUTSIDE_REFERENCE.test(" * see STYLE.md §3.4")).toBe(true);
    expect(OUTSIDE_REFERENCE.test("const p = PVE_VERSION; // 8.4")).toBe(false);
  });
});
