import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The docs and the comments that point into them stay true to each other: a moved page, a
 * renamed section or a regrouped design.md must not leave a pointer to nothing behind.
 */
const root = path.resolve(__dirname, "../..");
const pages = [
  "README.md",
  ...fs.readdirSync(path.join(root, "docs")).map((f) => `docs/${f}`),
].filter((f) => f.endsWith(".md"));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

const headingsOf = (file: string) =>
  fs
    .readFileSync(path.join(root, file), "utf8")
    .split("\n")
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => line.replace(/^#+ /, ""));

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(rel);
    return /\.(ts|sh)$/.test(entry.name) ? [rel] : [];
  });
}

describe("the docs", () => {
  it.each(pages)("%s links only to pages and sections that exist", (page) => {
    const text = fs.readFileSync(path.join(root, page), "utf8");
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!target || /^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split("#");
      const resolved = file ? path.normalize(path.join(path.dirname(page), file)) : page;
      if (!fs.existsSync(path.join(root, resolved))) {
        broken.push(target);
        continue;
      }
      if (
        anchor &&
        resolved.endsWith(".md") &&
        !headingsOf(resolved).map(anchorOf).includes(anchor)
      ) {
        broken.push(target);
      }
    }
    expect(broken).toEqual([]);
  });

  it("has a section for every design decision a comment points to", () => {
    const decisions = headingsOf("docs/design.md");
    const missing = ["provider", "cli", "components", "simulator", "scripts", "bench", "test"]
      .flatMap(sourceFiles)
      .flatMap((file) =>
        [
          ...fs.readFileSync(path.join(root, file), "utf8").matchAll(/design\.md\)?, "([^"]+)"/g),
        ].map((m) => `${file}: ${(m[1] ?? "").replace(/\s*\n\s*(\*|\/\/)?\s*/g, " ")}`),
      )
      .filter((ref) => !decisions.some((d) => d.startsWith(ref.split(": ").slice(1).join(": "))));
    expect(missing).toEqual([]);
  });

  it("lists every page in docs/README.md", () => {
    const index = fs.readFileSync(path.join(root, "docs/README.md"), "utf8");
    const unlisted = pages
      .filter((p) => p.startsWith("docs/") && p !== "docs/README.md")
      .filter((p) => !index.includes(`(${path.basename(p)})`));
    expect(unlisted).toEqual([]);
  });
});
