import { defineConfig } from "vitest/config";

// The reliability benches run under vitest so they share the test harness as it is (extensionless
// imports, the engine's packed consumer workspace). Each is one long case that prints a table and
// fails only when it cannot run; the verdicts are in the table, not in the exit code.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "bench-engine",
          include: [
            "bench/crash-points.ts",
            "bench/two-stacks.ts",
            "bench/scale.ts",
            "bench/create-timeline.ts",
          ],
          globalSetup: ["test/e2e/support/global-setup.ts"],
          testTimeout: 24 * 3600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "bench-http",
          include: ["bench/faults.ts"],
          testTimeout: 24 * 3600_000,
        },
      },
    ],
  },
});
