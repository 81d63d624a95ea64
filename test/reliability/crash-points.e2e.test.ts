import { describe, expect, it } from "vitest";
import {
  crashPoints,
  formatTable,
  runCrashPoint,
  samplePoints,
  type Operation,
} from "../e2e/support/crash-harness";

/**
 * A sample of the crash points that fits CI's time (`npm run bench:crash` runs every request of
 * every operation, replace and move-back included): a create killed after its clone POST and
 * after its last request (marked complete, not yet saved), an update killed after the re-seed's
 * upload, and a delete killed after its destroy request. (A kill right after a delete's last
 * request can land while Pulumi's file backend writes its checkpoint and tear it: see
 * docs/known-limits.md. The bench keeps that point.)
 */
const SAMPLE: Partial<Record<Operation, { patterns: RegExp[]; last: boolean }>> = {
  create: { patterns: [/^POST .*\/clone$/], last: true },
  update: { patterns: [/^POST .*\/upload$/], last: false },
  delete: { patterns: [/^DELETE .*\/qemu\/[^/]+$/], last: false },
};

describe("a pulumi run killed right after request k, then recovered as a user would", () => {
  it.each(Object.keys(SAMPLE) as Operation[])(
    "leaves %s with the expected VMs and seeds, no lock, a manageable state and no process",
    async (operation) => {
      const points = await crashPoints(operation);
      const { patterns, last } = SAMPLE[operation] ?? { patterns: [], last: false };
      const sample = samplePoints(points, patterns, last);
      expect(sample.length).toBeGreaterThan(0);
      for (const point of sample) {
        const result = await runCrashPoint(point);
        console.log(formatTable([result]));
        expect(result, result.detail).toMatchObject({ outcome: "ok" });
      }
    },
  );
});
