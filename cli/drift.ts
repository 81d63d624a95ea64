/**
 * `pulumi-proxmox drift`: `pulumi preview --refresh` on a stack, as a CI check. Exit code 0 when
 * the program and Proxmox agree, 2 when the engine would change something, 1 on any error.
 */
import { CURRENT_CONFIG, runEngineCommand, type EngineCommandOptions } from "./engine-command";
import { readPendingCreates, recoveryAdvice } from "./pending-creates";
import type { CommandReport } from "./report";

export type DriftOptions = EngineCommandOptions;

/**
 * Runs the drift check. Resolves with the report (never rejects): `status` is `clean`, `drift`
 * or `error`, `exitCode` 0, 2 or 1, and `resources` names each resource and property that
 * differs, with the recorded, live and desired values. Pending creates of an interrupted run are
 * reported as a notice with their recovery, and count as drift (their VMs are not in the state).
 */
export function drift(options: DriftOptions): Promise<CommandReport> {
  return runEngineCommand("drift", options, async (stack, hooks) => {
    const pending = await readPendingCreates(stack);
    if (pending.identities.size > 0) {
      hooks.notice(recoveryAdvice(options.stack, pending.identities.size));
    }
    const result = await stack.preview({
      parallel: hooks.parallel,
      refresh: true,
      ...CURRENT_CONFIG,
      color: "never",
      onEvent: hooks.onEvent,
      onOutput: hooks.onOutput,
    });
    return { changeSummary: result.changeSummary, drift: pending.identities.size > 0 };
  });
}
