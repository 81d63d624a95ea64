/**
 * For a VM under HA, PVE answers start, stop and shutdown with an `hastart`/`hastop` task that
 * only asks ha-manager for the new state and ends at once; the cluster resource manager acts
 * on it in its next round (about 10 s later). Whoever needs the VM really started or stopped
 * polls its status after such a task.
 */
import { typeOfUpid } from "../../pve/upid";
import type { Upid } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { TransientError, vmLabel } from "../../pve/errors";
import { growing, pollUntil } from "../../pve/poll";

/** The poll starts at 500 ms and grows ×1.5 to 5 s: the CRM acts in rounds of about 10 s. */
const POLL_FIRST_MS = 500;
const POLL_MAX_MS = 5_000;
const PROGRESS_EVERY_MS = 10_000;

/** Whether the UPID (`UPID:node:pid:pstart:starttime:type:id:user:`) is an HA request. */
export function isHaRequest(upid: Upid): boolean {
  const type = typeOfUpid(upid);
  return type === "hastart" || type === "hastop";
}

/**
 * Polls the VM's status until it is `want`, within `budgetMs`, with a progress line every
 * 10 s naming the seconds waited. Past the budget: a TIMEOUT naming the HA resource to check.
 */
export async function waitForPowerState(
  ctx: OperationContext,
  vm: { readonly node: string; readonly vmid: number },
  want: "running" | "stopped",
  budgetMs: number,
): Promise<void> {
  let last = "unknown";
  await pollUntil({
    clock: ctx,
    budgetMs,
    firstIntervalMs: POLL_FIRST_MS,
    nextIntervalMs: growing(POLL_MAX_MS),
    attempt: async () => {
      last = (await ctx.api.vmStatus(vm.node, vm.vmid)).status;
      return last === want ? true : undefined;
    },
    timedOut: (waited) =>
      new TransientError(
        "TIMEOUT",
        `${vmLabel(vm)} is under HA and was still ${last} ` +
          `${Math.round(waited / 1000)} s after HA was asked for ${want}. Check the HA resource ` +
          `vm:${vm.vmid} (Datacenter > HA, or \`ha-manager status\`): it may be in the error ` +
          "state or its node may be fenced. Run the command again once HA shows it " +
          `${want === "running" ? "started" : "stopped"}.`,
        vm,
      ),
    progressEveryMs: PROGRESS_EVERY_MS,
    progress: (waited) =>
      ctx.progress(
        `VM ${vm.vmid} on ${vm.node}: waiting for HA to report it ${want} (${Math.round(waited / 1000)} s)`,
      ),
  });
}
