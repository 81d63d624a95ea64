/**
 * `pulumi-proxmox destroy`: `pulumi destroy` for CI, with the same report (0 ok, 1 error).
 *
 * The engine deletes only the resources of the state; a VM that only a pending create holds (a
 * killed `up`'s) would be left running and unseen. After the engine's destroy, those VMs and
 * their seeds are deleted with sweep's ordered delete (restricted to exactly those identities),
 * and their pending creates are dropped.
 */
import * as path from "node:path";
import { CURRENT_CONFIG, runEngineCommand, type EngineCommandOptions } from "./engine-command";
import { stackConnection } from "./connection";
import { pendingCreatesByCluster } from "./pending-clusters";
import { clearPendingVmCreates, readPendingCreates } from "./pending-creates";
import type { CommandReport } from "./report";
import { sweep } from "./sweep";

export interface DestroyOptions extends EngineCommandOptions {
  /** Refresh the state first (`pulumi destroy --refresh`). */
  readonly refresh?: boolean | undefined;
}

/** Runs `destroy`; resolves with the report (never rejects). The stack itself is kept. */
export function destroy(options: DestroyOptions): Promise<CommandReport> {
  return runEngineCommand("destroy", options, async (stack, hooks) => {
    const pending = await readPendingCreates(stack);
    const result = await stack.destroy({
      parallel: hooks.parallel,
      refresh: options.refresh === true,
      ...CURRENT_CONFIG,
      color: "never",
      onEvent: hooks.onEvent,
      onOutput: hooks.onOutput,
    });
    if (pending.identities.size > 0) {
      const count = pending.identities.size;
      hooks.notice(
        `${count} VM(s) of an interrupted run were not in the state (pending creates): deleting them`,
      );
      const env = { ...process.env, ...options.env };
      // Each on its own cluster: the stack config's, or an explicit Provider's.
      const clusters = pendingCreatesByCluster(
        pending.state,
        pending.identities,
        env,
        path.resolve(options.cwd ?? process.cwd()),
      );
      for (const cluster of clusters) {
        const on = cluster.provider === undefined ? "" : ` (provider ${cluster.provider})`;
        let report;
        try {
          report = await sweep({
            connection: cluster.connection ?? (await stackConnection(stack, env)),
            stacks: [options],
            apply: true,
            only: cluster.identities,
            onProgress: (line) => hooks.onOutput(`pulumi-proxmox: ${line}${on}\n`),
          });
        } catch (error) {
          throw new Error(
            `the VMs of the interrupted run${on} were not deleted (${(error as Error).message}); ` +
              `run \`pulumi-proxmox sweep --stack ${options.stack} --apply\` against that ` +
              `cluster to delete them`,
            { cause: error },
          );
        }
        for (const item of report.items) hooks.notice(`${item.action} ${item.target}${on}`);
        if (report.exitCode !== 0) {
          throw new Error(
            `some VMs or seeds of the interrupted run${on} could not be deleted; ` +
              `run \`pulumi-proxmox sweep --stack ${options.stack} --apply\` against that ` +
              `cluster again`,
          );
        }
      }
      await clearPendingVmCreates(stack, pending.state);
    }
    // Running the program (CURRENT_CONFIG) makes the engine count each resource the program
    // registers as `same` before it deletes it; a destroy keeps nothing, so only its deletes count.
    const { same: _registered, ...changeSummary } = result.summary.resourceChanges ?? {};
    return { changeSummary };
  });
}
