import { describe, expect, it } from "vitest";
import type { AutomationModule } from "../../cli/automation";
import { DEFAULT_PARALLEL, runEngineCommand } from "../../cli/engine-command";

/** An automation module whose stacks are empty stand-ins: runEngineCommand only selects one. */
const automation = {
  LocalWorkspace: { selectStack: async () => ({}) },
} as unknown as AutomationModule;

async function parallelOf(
  options: { parallel?: number; env?: Record<string, string> } = {},
): Promise<{ parallel: number | undefined; output: string }> {
  let parallel: number | undefined;
  let output = "";
  await runEngineCommand(
    "up",
    { stack: "dev", automation, onOutput: (text) => void (output += text), ...options },
    async (_stack, hooks) => {
      parallel = hooks.parallel;
      return { changeSummary: {} };
    },
  );
  return { parallel, output };
}

describe("runEngineCommand", () => {
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
});
