import { beforeEach, describe, expect, it } from "vitest";
import type { AutomationModule } from "../../cli/automation";
import { DEFAULT_PARALLEL, resetParallelNotice, runEngineCommand } from "../../cli/engine-command";
import { repoRoot } from "../e2e/support/paths";

/** An automation module whose stacks are empty stand-ins: runEngineCommand only selects one. */
const automation = {
  LocalWorkspace: { selectStack: async () => ({}) },
} as unknown as AutomationModule;

async function parallelOf(
  options: { parallel?: number; env?: Record<string, string> } = {},
  command: "up" | "drift" | "destroy" = "up",
): Promise<{ parallel: number | undefined; output: string }> {
  let parallel: number | undefined;
  let output = "";
  await runEngineCommand(
    command,
    { stack: "dev", automation, onOutput: (text) => void (output += text), ...options },
    async (_stack, hooks) => {
      parallel = hooks.parallel;
      return { changeSummary: {} };
    },
  );
  return { parallel, output };
}

describe("runEngineCommand", () => {
  beforeEach(() => resetParallelNotice());

  it("runs the engine with the default parallelism and says so", async () => {
    // Whatever the test runner's own environment holds.
    const { parallel, output } = await parallelOf({ env: { PULUMI_PARALLEL: "" } });
    expect(parallel).toBe(DEFAULT_PARALLEL);
    expect(output).toContain(
      `pulumi-proxmox: running ${DEFAULT_PARALLEL} resource operations at once (--parallel ${DEFAULT_PARALLEL})`,
    );
  });

  it("takes the caller's parallelism without a word", async () => {
    expect(await parallelOf({ parallel: 4 })).toEqual({ parallel: 4, output: "" });
  });

  it("takes PULUMI_PARALLEL, the engine's own setting, without a word", async () => {
    expect(await parallelOf({ env: { PULUMI_PARALLEL: "16" } })).toEqual({
      parallel: 16,
      output: "",
    });
  });

  it("says the default parallelism once per process, however many commands run", async () => {
    const env = { PULUMI_PARALLEL: "" };
    expect((await parallelOf({ env })).output).toContain("--parallel 128");
    expect(await parallelOf({ env }, "destroy")).toEqual({
      parallel: DEFAULT_PARALLEL,
      output: "",
    });
  });

  it("never says it on drift, which runs no resource operation", async () => {
    const env = { PULUMI_PARALLEL: "" };
    expect(await parallelOf({ env }, "drift")).toEqual({ parallel: DEFAULT_PARALLEL, output: "" });
  });

  it("turns a locked stack into the exact pulumi cancel command and what it does", async () => {
    const report = await runEngineCommand(
      "up",
      { stack: "dev", cwd: repoRoot, automation, onOutput: () => undefined, parallel: 1 },
      async () => {
        throw new Error(
          "code: 255\n stdout: \n stderr: error: the stack is currently locked by 1 lock(s). " +
            "Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.",
        );
      },
    );
    expect(report.exitCode).toBe(1);
    expect(report.error).toContain("stack dev is locked");
    expect(report.error).toContain(`  pulumi cancel --yes --stack dev --cwd ${repoRoot}\n`);
    expect(report.error).toContain("It removes the lock and changes nothing on Proxmox.");
    expect(report.error).not.toContain("code: 255");
  });

  it("says nothing of parallelism when the stack cannot be selected", async () => {
    let output = "";
    const missing = {
      LocalWorkspace: {
        selectStack: async () => {
          throw new Error("no stack named 'dev' found");
        },
        create: async () => ({ listStacks: async () => [] }),
      },
    } as unknown as AutomationModule;
    const report = await runEngineCommand(
      "up",
      {
        stack: "dev",
        automation: missing,
        env: { PULUMI_PARALLEL: "" },
        onOutput: (t) => void (output += t),
      },
      async () => ({ changeSummary: {} }),
    );
    expect(report.exitCode).toBe(1);
    expect(report.error).toContain("no stack named 'dev' found for the program in");
    expect(output).toBe("");
  });
});
