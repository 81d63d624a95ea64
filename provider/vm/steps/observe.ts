/**
 * What a VM looks like on PVE right now, as outputs: the inputs as the spec reads them back (so a
 * refresh shows drift; the placement the VM's mark records), plus status, MAC, addresses and the seed. Shared by create, update and read, so
 * all three report the same facts the same way.
 */
import type { VmPendingConfig, VmStatus } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { hasCode } from "../../pve/errors";
import { readMark } from "../identity";
import { observedInputs } from "../spec/apply";
import { ownAddresses, type GuestAddresses } from "../state/guest-addresses";
import { VM_STATE_VERSION, type VmState } from "../state/vm-state";
import { nicKey, nicsOf } from "../spec/network";
import { cdromVolid, guestRunning, parseNic } from "../state/vm-facts";
import { unfinishedUpdateOf } from "../rollback/snapshot-steps";
import type { ConvergedVm } from "./converge";
import type { Naming, ResolvedInputs } from "./resolved-inputs";

/** What the caller has read already, as live as a read here would be: not asked for again. */
export interface KnownFacts {
  readonly pending?: VmPendingConfig | undefined;
  readonly status?: VmStatus | undefined;
}

export async function observe(
  ctx: OperationContext,
  vm: ConvergedVm,
  inputs: ResolvedInputs,
  naming: Naming,
  known: KnownFacts = {},
): Promise<VmState> {
  const [{ config, current, pending }, status] = await Promise.all([
    known.pending ?? ctx.api.vmPending(vm.node, vm.vmid),
    known.status ?? ctx.api.vmStatus(vm.node, vm.vmid),
  ]);
  const running = guestRunning(status.status, status.qmpstatus);
  // The NICs the program declares, as PVE holds them now.
  const macs = nicsOf(inputs).nics.flatMap((_, i) => {
    const mac = parseNic(config[nicKey(i)] as string | undefined)?.mac;
    return mac === undefined ? [] : [mac];
  });
  const addresses =
    !running || !config.agent
      ? { v4: [], v6: [] }
      : vm.guestInterfaces !== undefined
        ? ownAddresses(vm.guestInterfaces, macs)
        : await guestAddresses(ctx, vm, macs);
  const seedVolid = cdromVolid(config.ide2);
  const unfinishedUpdate = await unfinishedUpdateOf(ctx, vm, config);
  const mark = readMark(config.description);

  return {
    ...inputs,
    schemaVersion: VM_STATE_VERSION,
    identityHash: naming.identity,
    // What the VM runs with: a change waiting for its reboot is drift until then.
    ...observedInputs({ config: current, running, pool: vm.pool }, mark, inputs),
    vmid: vm.vmid,
    vmName: config.name ?? naming.vmName,
    currentNode: vm.node,
    phase: mark?.phase ?? "creating",
    status: status.qmpstatus && status.status === "running" ? status.qmpstatus : status.status,
    macAddress: parseNic(config.net0)?.mac,
    ipv4Addresses: addresses.v4,
    ipv6Addresses: addresses.v6,
    seedVolid,
    pendingChanges: [...pending],
    ...(unfinishedUpdate === undefined ? {} : { unfinishedUpdate }),
  } as VmState;
}

/** The addresses of the VM's own NICs (by their MACs, in NIC order), as the guest agent lists them. */
async function guestAddresses(
  ctx: OperationContext,
  vm: ConvergedVm,
  macs: readonly string[],
): Promise<GuestAddresses> {
  try {
    return ownAddresses(await ctx.api.agentInterfaces(vm.node, vm.vmid), macs);
  } catch (error) {
    // A guest still booting has no agent yet: no addresses is the truthful answer.
    if (hasCode(error, "UNAVAILABLE") || hasCode(error, "SERVER")) return { v4: [], v6: [] };
    throw error;
  }
}
