import { describe, expect, it } from "vitest";
import {
  crashPoints,
  formatTable,
  runCrashPoint,
  samplePoints,
  type Operation,
} from "../e2e/support/crash-harness";

/**
 * A sample of the crash points (the bench runs all of them): per operation, the requests that
 * change something — the clone, the seed upload, the start, the migration — and the last one.
 */
const SAMPLE: Record<Operation, { patterns: RegExp[]; last: boolean }> = {
  create: { patterns: [/^POST .*\/clone$/], last: true },
  update: { patterns: [/^POST .*\/upload$/], last: false },
  replace: { patterns: [/^POST .*\/status\/start$/], last: false },
  "move-back": { patterns: [/^POST .*\/migrate$/], last: false },
  delete: { patterns: [], last: true },
};

describe("a pulumi run killed right after request k, then recovered as a user would", () => {
  it.each(Object.keys(SAMPLE) as Operation[])(
    "leaves %s with the expected VMs and seeds, no lock, a manageable state and no process",
    async (operation) => {
      const points = await crashPoints(operation);
      const sample = samplePoints(points, SAMPLE[operation].patterns, SAMPLE[operation].last);
      expect(sample.length).toBeGreaterThan(0);
      for (const point of sample) {
        const result = await runCrashPoint(point);
        console.log(formatTable([result]));
        expect(result, result.detail).toMatchObject({ outcome: "ok" });
      }
    },
  );
});
