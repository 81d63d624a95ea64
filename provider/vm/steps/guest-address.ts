/** The last wait of `converge`: the guest agent reporting an address on the VM's first NIC. */
import type { GuestInterface } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { TransientError, hasCode, vmLabel } from "../../pve/errors";
import { pollUntil, proportional } from "../../pve/poll";
import { ownAddresses } from "../state/guest-addresses";
import type { VmLocation } from "./vm-location";

/**
 * The agent is polled every 250 ms at first, then at a fifth of the time waited, up to every
 * 2 s: a boot is seen at most 20 % late (10 % on average), or 2 s on a long one. Growing ×1.5
 * per poll, as it did, saw a boot of a few seconds up to 50 % late (25 % on average): at 50 VMs
 * that was the largest wait no PVE task accounted for. Once a guest of the same template has
 * answered in this process, the wait first stays quiet for 90 % of the shortest boot seen: a
 * deployment of N VMs pays the early polls once, not N times.
 */
const AGENT_POLL_FIRST_MS = 250;
const AGENT_POLL_MAX_MS = 2_000;
const AGENT_POLL_RATIO = 0.2;

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
    firstIntervalMs: AGENT_POLL_FIRST_MS,
    nextIntervalMs: proportional(AGENT_POLL_RATIO, AGENT_POLL_FIRST_MS, AGENT_POLL_MAX_MS),
    attempt: async (elapsedMs) => {
      try {
        const interfaces = await ctx.api.agentInterfaces(vm.node, vm.vmid);
        const address = ownAddresses(interfaces, mac === undefined ? [] : [mac]).v4[0];
        if (address !== undefined) return { address, interfaces, elapsedMs };
      } catch (error) {
        // Before boot the agent is not running: that is the wait, not a failure.
        if (!hasCode(error, "UNAVAILABLE") && !hasCode(error, "SERVER")) throw error;
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
    progressEveryMs: 10_000,
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
