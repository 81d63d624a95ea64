import { defineConfig } from "vitest/config";

// How many e2e files run at once (PULUMI_PROXMOX_E2E_FILES, default 1): the engine runs are
// heavy on 2 cores; docs/design.md ("How many test files run at once") says what was measured.
const e2eFiles = Number(process.env["PULUMI_PROXMOX_E2E_FILES"] ?? "1");
// How many unit and integration files run at once (PULUMI_PROXMOX_TEST_FILES, default 2): they
// mostly wait on the simulator's task clocks, so two share the 2 cores well. e2e files run after
// them, PULUMI_PROXMOX_E2E_FILES at a time (docs/design.md, "How many test files run at once").
const testFiles = Number(process.env["PULUMI_PROXMOX_TEST_FILES"] ?? "2");

// Three projects, by what a test is allowed to touch:
// - unit:        pure code and fakes; fake timers allowed; no sockets.
// - integration: real HTTP against the simulator on a loopback port.
// - e2e:         the real Pulumi engine (CLI and automation API) with a local file backend.
export default defineConfig({
  test: {
    maxWorkers: testFiles,
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          // Some unit tests hand an ISO or YAML to Debian's own readers (xorriso, cloud-init):
          // slow processes on a busy 2-core machine, never a network.
          testTimeout: 30_000,
          exclude: ["test/**/*.int.test.ts", "test/**/*.e2e.test.ts"],
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/**/*.int.test.ts"],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/**/*.e2e.test.ts"],
          globalSetup: ["test/e2e/support/global-setup.ts"],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: e2eFiles > 1,
          maxWorkers: e2eFiles,
        },
      },
    ],
  },
});
