/**
 * The faults the matrix injects, and what docs/errors.md's "What is retried" table says of each:
 * the contract a row's error is judged against, read from the docs rather than from classify().
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "../../e2e/support/paths";

export const FAULTS = [
  "401",
  "403",
  "500",
  "595",
  "596",
  "timeout",
  "reset",
  "lost answer",
  "task failure",
] as const;
export type Fault = (typeof FAULTS)[number];

/** The transient faults: whether each provably had no effect (docs/errors.md, "had no effect"). */
const TRANSIENT_FAULTS: Partial<Record<Fault, { readonly noEffect: boolean }>> = {
  "595": { noEffect: true },
  "596": { noEffect: false },
  timeout: { noEffect: false },
  reset: { noEffect: false },
  "lost answer": { noEffect: false },
};

/** How docs/errors.md's "What is retried" table answers for one request. */
export interface DocumentedRetry {
  readonly kind: "always" | "no effect only" | "never";
  /** A wait that polls through a 500 as well (the guest agent's). */
  readonly pollsThrough500: boolean;
}

/**
 * `request name → retried?` from the "What is retried" table in docs/errors.md, the one place
 * the contract is written. A row like `DELETE VM, DELETE volume` names two requests; a
 * parenthesis after a name only explains it.
 */
export function documentedRetries(): Map<string, DocumentedRetry> {
  const text = fs.readFileSync(path.join(repoRoot, "docs", "errors.md"), "utf8");
  const section = text.split(/^## What is retried$/m)[1]?.split(/^## /m)[0] ?? "";
  const table = new Map<string, DocumentedRetry>();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 4 || !/^(every )?[A-Z]+ /.test(cells[1] ?? "")) continue;
    const answer = cells[2] ?? "";
    const retry: DocumentedRetry = {
      kind: /^always\b/.test(answer)
        ? "always"
        : /^only when the first had no effect\b/.test(answer)
          ? "no effect only"
          : "never",
      pollsThrough500: /polls through .*\ba 500\b/.test(answer),
    };
    const names = (cells[1] ?? "").replace(/\([^)]*\)/g, "").split(",");
    for (const name of names) table.set(name.trim(), retry);
  }
  if (table.size === 0) throw new Error('docs/errors.md has no "What is retried" table');
  return table;
}

/** The name the docs table gives a request kind, e.g. `DELETE /nodes/{node}/qemu/{vmid}` → `DELETE VM`. */
export function requestName(kind: string): string {
  const [method = "", pattern = ""] = kind.split(" ");
  const last = pattern.split("/").at(-1) ?? "";
  if (method === "GET") {
    if (/\/tasks\/\{[a-z]+\}\/status$/.test(pattern)) return "GET task status";
    if (/^\/nodes\/\{node\}\/tasks$/.test(pattern)) return "GET node task list";
    if (pattern.endsWith("/agent/network-get-interfaces")) return "GET guest interfaces";
    return "every GET";
  }
  if (method === "DELETE") {
    if (last === "{snapname}") return "DELETE snapshot";
    return last === "{volid}" ? "DELETE volume" : "DELETE VM";
  }
  if (/\/snapshot\/\{snapname\}\/config$/.test(pattern)) return `${method} snapshot description`;
  // PVE's two forms of one change: POST (a worker task) and PUT (applied in the API worker).
  if (last === "config") return "POST or PUT config";
  return `${method} ${last}`;
}

/** Whether the docs say `fault` on `kind` is retried; a permanent fault never is. */
export function documentedRetried(
  docs: ReadonlyMap<string, DocumentedRetry>,
  kind: string,
  fault: Fault,
): boolean {
  // A failed task is TASK_FAILED, permanent: never dispatched again.
  if (fault === "task failure") return false;
  const name = requestName(kind);
  const retry = docs.get(name);
  if (retry === undefined)
    throw new Error(`docs/errors.md "What is retried" has no row for ${name}`);
  if (fault === "500") return retry.pollsThrough500;
  const transient = TRANSIENT_FAULTS[fault];
  if (transient === undefined) return false;
  return retry.kind === "always" || (retry.kind === "no effect only" && transient.noEffect);
}
