/** `pulumi-proxmox up`: `pulumi up` for CI, with the same report and exit codes (0 ok, 1 error). */
import { runEngineCommand, type EngineCommandOptions } from "./engine-command";
import type { CommandReport } from "./report";

export interface UpOptions extends EngineCommandOptions {
  /** Refresh the state first (`pulumi up --refresh`). */
  readonly refresh?: boolean | undefined;
}

/** Runs `up`; resolves with the report (never rejects), stack outputs included. */
export function up(options: UpOptions): Promise<CommandReport> {
  return runEngineCommand("up", options, async (stack, hooks) => {
    const result = await stack.up({
      refresh: options.refresh === true,
      color: "never",
      onEvent: hooks.onEvent,
      onOutput: hooks.onOutput,
    });
    const outputs = Object.fromEntries(
      Object.entries(result.outputs).map(([key, out]) => [
        key,
        out.secret ? "[secret]" : out.value,
      ]),
    );
    return { changeSummary: result.summary.resourceChanges ?? {}, outputs };
  });
}
