// Every crash point of every operation: kill the engine and provider right after request k,
// recover as a user would, judge what is left. Takes a long while (a few engine runs per k).
//
//   npm run bench:crash                        # all operations
//   CRASH_OPERATIONS=template-create,template-delete npm run bench:crash
//   CRASH_OPERATIONS=adopt npm run bench:crash       # an adoption (adopt: { vmid })
//   CRASH_KINDS='snapshot|resize|reboot' npm run bench:crash   # only the requests whose kind matches
//
// Prints the table (operation, k, request, outcome) and the counts per outcome. Exits non-zero
// only when the harness cannot run; bad outcomes are the table's news, not a failure.
import { it } from "vitest";
import {
  crashPoints,
  formatTable,
  OPERATIONS,
  runCrashPoint,
  type CrashResult,
  type Operation,
} from "../test/e2e/support/crash-harness";

const chosen = (process.env["CRASH_OPERATIONS"]?.split(",") ?? [...OPERATIONS]) as Operation[];
const kinds = new RegExp(process.env["CRASH_KINDS"] ?? "");

it("runs every crash point and prints the table", async () => {
  const results: CrashResult[] = [];
  for (const operation of chosen) {
    const points = await crashPoints(operation);
    console.log(`${operation}: ${points.length} requests in a clean run`);
    for (const point of points.filter((p) => kinds.test(p.kind))) {
      const result = await runCrashPoint(point);
      results.push(result);
      console.log(formatTable([result]).split("\n")[1]);
    }
  }
  console.log(`\n${formatTable(results)}\n`);
  const counts = new Map<string, number>();
  for (const r of results) {
    const key = r.outcome.startsWith("error") || r.outcome.includes(" ") ? "error" : r.outcome;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  console.log(
    `${results.length} crash points: ${[...counts].map(([k, n]) => `${n} ${k}`).join(", ")}`,
  );
});
