/** `pulumi-proxmox destroy`: `pulumi destroy` for CI, with the same report (0 ok, 1 error). */
import { runEngineCommand, type EngineCommandOptions } from "./engine-command";
import type { CommandReport } from "./report";

export interface DestroyOptions extends EngineCommandOptions {
  /** Refresh the state first (`pulumi destroy --refresh`). */
  readonly refresh?: boolean | undefined;
}

/** Runs `destroy`; resolves with the report (never rejects). The stack itself is kept. */
export function destroy(options: DestroyOptions): Promise<CommandReport> {
  return runEngineCommand("destroy", options, async (stack, hooks) => {
    const result = await stack.destroy({
      refresh: options.refresh === true,
      color: "never",
      onEvent: hooks.onEvent,
      onOutput: hooks.onOutput,
    });
    return { changeSummary: result.summary.resourceChanges ?? {} };
  });
}
