/** The last wait of `converge`: the guest agent reporting an address on the VM's first NIC. */
import type { GuestInterface } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { PermanentError, TransientError, hasCode, isProxmoxError, vmLabel } from "../../pve/errors";
import { pollUntil, proportional } from "../../pve/poll";
import { typeOfUpid } from "../../pve/upid";
import { ownAddresses } from "../state/guest-addresses";
import type { VmLocation } from "./vm-location";

/**
 * The agent is polled every 250 ms at first, then at a fifth of the time waited, up to every
 * 2 s: a boot is seen at most 20 % late (10 % on average), or 2 s on a long one. Growing ×1.5
 * per poll, as it did, saw a boot of a few seconds up to 50 % late (25 % on average): at 50 VMs
 * that was the largest wait no PVE task accounted for. Once a guest of the same template has
 * answered in this process, the wait first stays quiet for 90 % of the shortest boot seen: a
 * deployment of N VMs pays the early polls once, not N times. docs/architecture.md quotes it.
 */
export const AGENT_POLL = {
  firstIntervalMs: 250,
  maxIntervalMs: 2_000,
  ratio: 0.2,
  progressEveryMs: 10_000,
} as const;

/**
 * Polls the guest agent until the VM's first NIC (net0's MAC) has a routable IPv4 address, within
 * the agent budget: a docker0 bridge or an APIPA address that comes up first does not count. Only
 * the first NIC is waited for: it is the one the VM is reached by, and another NIC may sit on a
 * network without DHCP (docs/design.md, "A VM's addresses are those of its own NICs").
 */
export async function waitForAddress(
  ctx: OperationContext,
  vm: VmLocation,
  mac: string | undefined,
  options: { readonly budgetMs: number; readonly template: string },
): Promise<readonly GuestInterface[]> {
  const { budgetMs } = options;
  const started = ctx.now();
  // The last moment the guest was seen without an address: its boot took longer.
  let notYetMs: number | undefined;
  const found = await pollUntil({
    clock: ctx,
    budgetMs,
    quietMs: ctx.guestBoots.quietMs(options.template),
    firstIntervalMs: AGENT_POLL.firstIntervalMs,
    nextIntervalMs: proportional(
      AGENT_POLL.ratio,
      AGENT_POLL.firstIntervalMs,
      AGENT_POLL.maxIntervalMs,
    ),
    attempt: async (elapsedMs) => {
      try {
        const interfaces = await ctx.api.agentInterfaces(vm.node, vm.vmid);
        const address = ownAddresses(interfaces, mac === undefined ? [] : [mac]).v4[0];
        if (address !== undefined) return { address, interfaces, elapsedMs };
      } catch (error) {
        // Before boot the agent is not running: that is the wait, not a failure.
        if (!hasCode(error, "UNAVAILABLE") && !hasCode(error, "SERVER")) throw error;
        if (vmNotRunning(error)) await failedStart(ctx, vm);
      }
      notYetMs = elapsedMs;
      return undefined;
    },
    timedOut: () =>
      new TransientError(
        "TIMEOUT",
        `${vmLabel(vm)}: the guest agent reported no IPv4 address on the ` +
          `VM's NIC (${mac ?? "no net0 MAC"}) within ` +
          `${Math.round(budgetMs / 1000)} s. Check that the template boots with cloud-init and that ` +
          "qemu-guest-agent starts, or set waitForIp: false.",
        vm,
      ),
    progressEveryMs: AGENT_POLL.progressEveryMs,
    progress: (waited) =>
      ctx.progress(
        `VM ${vm.vmid} on ${vm.node}: waiting for the guest agent (${Math.round(waited / 1000)} s)`,
      ),
  });
  // The boot ended between the last "not yet" and the answer, which may come a whole interval
  // late: the middle is recorded, so the next wait's quiet time does not outlast a boot.
  ctx.guestBoots.record(
    options.template,
    notYetMs === undefined ? found.elapsedMs : (notYetMs + found.elapsedMs) / 2,
  );
  const waited = Math.round((ctx.now() - started) / 1000);
  ctx.progress(
    `VM ${vm.vmid} on ${vm.node}: guest agent reports ${found.address} after ${waited} s`,
  );
  return found.interfaces;
}

/**
 * PVE's agent routes die `VM <vmid> is not running` for a stopped VM (qemu-server's
 * PVE/QemuServer/Agent.pm `assert_agent_available`), unlike `QEMU guest agent is not running`
 * for a booting guest.
 */
function vmNotRunning(error: unknown): boolean {
  if (!isProxmoxError(error)) return false;
  return /^VM \d+ (is )?not running/.test(error.context.pveMessage ?? error.message);
}

/**
 * A stopped VM whose newest finished task is a failed start stays stopped: a reboot's start (run
 * by `qm cleanup` once the guest is down) failed, and no answer will come within the budget.
 * Any other stopped VM (between a reboot's shutdown and its start) is still waited for.
 */
async function failedStart(ctx: OperationContext, vm: VmLocation): Promise<void> {
  const [last] = await ctx.api.nodeTasks(vm.node, { source: "archive", vmid: vm.vmid, limit: 1 });
  if (last === undefined || typeOfUpid(last.upid) !== "qmstart") return;
  if (last.status === undefined || last.status === "OK" || last.status.startsWith("WARNINGS"))
    return;
  throw new PermanentError(
    "TASK_FAILED",
    `${vmLabel(vm)}: the VM is not running, so the guest agent will not answer: its start ` +
      `task failed: ${last.status}. Fix the cause (the task's log on ${vm.node} says more), ` +
      "then run `pulumi up` again.",
    { ...vm, upid: last.upid, pveMessage: last.status },
  );
}
