/**
 * Two stacks on one small VMID range, forced to overlap: both `pulumi up` at once, several VMs
 * each, then both `destroy` at once. A round checks no collision, no failure, no
 * cross-adoption (every VM a stack holds carries that stack's identity), and that destroy
 * leaves nothing. Shared by test/reliability/two-stacks.e2e.test.ts and bench/two-stacks.ts.
 */
import { readMark } from "../../../provider/vm/identity";
import { startSimulator, type Simulator } from "../../../simulator";
import { firstError } from "../../e2e/support/crash-harness";
import { engineEnv, exportedResources, pulumi, type EngineEnv } from "../../e2e/support/engine";
import { guestVms, proxmoxStack, seedIsos } from "../../e2e/support/proxmox-stack";
import { VM_TYPE } from "../../../provider/entry";

export const VMID_RANGE = { min: 20000, max: 20007 } as const;
const VMS_PER_STACK = 3;

/** The same logical names in both stacks: only the identity (project + stack) tells them apart. */
const program = `
const { ProxmoxVm } = require("pulumi-proxmox");
for (let i = 0; i < ${VMS_PER_STACK}; i++) {
  new ProxmoxVm("web-" + i, {
    node: "pve1",
    template: 9000,
    cores: 1,
    memory: 512,
    vmidRange: { min: ${VMID_RANGE.min}, max: ${VMID_RANGE.max} },
  });
}
`;

export interface RoundResult {
  readonly round: number;
  /** Empty when the round holds. */
  readonly problems: readonly string[];
}

interface Stack {
  readonly name: string;
  readonly dir: string;
  readonly engine: EngineEnv;
}

export async function runRound(round: number): Promise<RoundResult> {
  const sim = await startSimulator({ defaultTaskMs: 100, listingLagMs: 500 });
  const stacks: Stack[] = [];
  const problems: string[] = [];
  try {
    for (const name of ["stack-a", "stack-b"]) {
      const engine = engineEnv();
      stacks.push({ name, engine, dir: await proxmoxStack(name, program, sim, engine) });
    }
    const ups = await Promise.all(
      stacks.map((s) => pulumi(["up", "--yes", "--skip-preview"], s.dir, s.engine.env)),
    );
    ups.forEach((r, i) => {
      if (r.code !== 0) problems.push(`${stacks[i]?.name} up failed: ${firstError(r)}`);
    });
    problems.push(...(await ownership(sim, stacks)));

    const destroys = await Promise.all(
      stacks.map((s) => pulumi(["destroy", "--yes", "--skip-preview"], s.dir, s.engine.env)),
    );
    destroys.forEach((r, i) => {
      if (r.code !== 0) problems.push(`${stacks[i]?.name} destroy failed: ${firstError(r)}`);
    });
    if (guestVms(sim).length > 0) problems.push(`destroy left VMs ${guestVms(sim).join(", ")}`);
    if (seedIsos(sim).length > 0) problems.push(`destroy left seeds ${seedIsos(sim).join(", ")}`);
    return { round, problems };
  } finally {
    for (const s of stacks) s.engine.cleanup();
    await sim.close();
  }
}

/** Each stack holds VMS_PER_STACK distinct VMs in range, each marked with the stack's identity. */
async function ownership(sim: Simulator, stacks: readonly Stack[]): Promise<string[]> {
  const problems: string[] = [];
  const owner = new Map<number, string>();
  for (const stack of stacks) {
    const vms = (await exportedResources(stack.dir, stack.engine.env)).filter(
      (r) => r.type === VM_TYPE && r.outputs !== undefined,
    );
    if (vms.length !== VMS_PER_STACK) problems.push(`${stack.name} holds ${vms.length} VMs`);
    for (const vm of vms) {
      const vmid = Number(vm.outputs?.["vmid"]);
      const other = owner.get(vmid);
      if (other !== undefined) problems.push(`VM ${vmid} is in both ${other} and ${stack.name}`);
      owner.set(vmid, stack.name);
      if (vmid < VMID_RANGE.min || vmid > VMID_RANGE.max) problems.push(`VM ${vmid} out of range`);
      const mark = readMark(String(sim.model.vms.get(vmid)?.config["description"] ?? ""));
      if (mark?.id !== vm.outputs?.["identityHash"]) {
        problems.push(`VM ${vmid} in ${stack.name} carries identity ${mark?.id ?? "none"}`);
      }
    }
  }
  const extra = guestVms(sim).filter((vmid) => !owner.has(vmid));
  if (extra.length > 0) problems.push(`VMs no stack holds: ${extra.join(", ")}`);
  return problems;
}
