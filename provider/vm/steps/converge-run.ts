/**
 * What every step of `converge` works with, and the one way it writes the VM's config: a write
 * reported as a progress line, its task waited for, a refusal naming the VM and what was written.
 */
import type { VmConfig } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { aboutVm } from "../../pve/errors";
import type { Seen } from "../spec/field";
import { nicKey, type VmNics } from "../spec/network";
import { parseNic } from "../state/vm-facts";
import type { Naming, ResolvedInputs } from "./resolved-inputs";
import type { VmLocation } from "./vm-location";

/** One convergence of one VM: where it is, what is wanted, and the budget of each task. */
export interface ConvergeRun {
  readonly ctx: OperationContext;
  readonly vm: VmLocation;
  readonly desired: ResolvedInputs;
  readonly naming: Naming;
  /** The budget of each task converge waits for (`timeouts.taskMs`). */
  readonly budgetMs: number;
}

/**
 * One config write and its task, reported as `doing`; a refusal names the VM, its node and the
 * keys with the inputs behind them (`net1 (networks[1])`), so the user knows what to fix.
 */
export async function writeConfig(
  run: ConvergeRun,
  doing: string,
  /** Resolves with the UPID of the task to wait for, or with null when PVE applied it. */
  write: () => Promise<string | null>,
): Promise<void> {
  const { ctx, vm } = run;
  const step = `VM ${vm.vmid} on ${vm.node}: ${doing}`;
  ctx.progress(step);
  try {
    const upid = await write();
    if (upid) await ctx.waitForTask(vm.node, upid, { budgetMs: run.budgetMs, step });
  } catch (error) {
    throw aboutVm(error, vm, doing);
  }
}

/** Each NIC's MAC: pinned, else the one PVE holds for its key (generated when it was added). */
export function seenIn(config: VmConfig, nics: VmNics): Seen {
  return {
    macs: Object.fromEntries(
      nics.nics.map((nic, i) => [
        nicKey(i),
        nic.mac ?? parseNic(config[nicKey(i)] as string | undefined)?.mac,
      ]),
    ),
  };
}
