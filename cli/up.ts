/**
 * `pulumi-proxmox up`: `pulumi up` for CI, with the same report and exit codes (0 ok, 1 error).
 *
 * It is also the recovery of an interrupted `up`: the VMs only a pending create holds are handed
 * to the provider as resumable (their creates carry on even when the VM is complete, instead of
 * refusing with CONFLICT), and their pending creates are dropped, since this run creates them.
 */
import { RESUME_ENV } from "../provider/entry";
import { CURRENT_CONFIG, runEngineCommand, type EngineCommandOptions } from "./engine-command";
import { clearPendingVmCreates, readPendingCreates } from "./pending-creates";
import type { CommandReport } from "./report";

export interface UpOptions extends EngineCommandOptions {
  /**
   * Refresh the state first (`pulumi up --refresh`), so that what changed outside Pulumi is put
   * back: default true; false (`--no-refresh`) trusts the state as the last run left it.
   */
  readonly refresh?: boolean | undefined;
}

/** Runs `up`; resolves with the report (never rejects), stack outputs included. */
export function up(options: UpOptions): Promise<CommandReport> {
  return runEngineCommand("up", options, async (stack, hooks) => {
    const pending = await readPendingCreates(stack);
    if (pending.identities.size > 0) {
      const ids = [...pending.identities].sort();
      hooks.notice(
        `resuming ${ids.length} VM(s) an interrupted run left as pending creates (identities ${ids.join(", ")})`,
      );
      // The engine starts the provider with the CLI's environment.
      stack.workspace.envVars[RESUME_ENV] = ids.join(",");
      await clearPendingVmCreates(stack, pending.state);
    }
    try {
      const result = await stack.up({
        parallel: hooks.parallel,
        refresh: options.refresh !== false,
        ...CURRENT_CONFIG,
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
    } finally {
      const { [RESUME_ENV]: _resumed, ...rest } = stack.workspace.envVars;
      stack.workspace.envVars = rest;
    }
  });
}
