/**
 * The VM's NUMA nodes (`numa`): qemu-server's `$numa_fmt` (PVE/QemuServer.pm), one `numaN` key
 * each, and the rules PVE/QemuServer/Memory.pm applies when it builds the VM's command line, which
 * would otherwise fail only the start.
 */
import { z } from "zod";
import type { VmConfig } from "../../pve/api/proxmox-api";
import { propertyString, text } from "./firmware";

/** qemu-server's limit: numa0 to numa7. */
const MAX_NODES = 8;
/** `$numa_fmt`'s `cpus` and `hostnodes`: `<id[-id];...>`. */
const ID_LIST = /^\d+(-\d+)?(;\d+(-\d+)?)*$/;

const nodeSchema = z
  .strictObject({
    /** The guest's vCPUs on this node, e.g. `"0-1"` or `"0-1;4"`. */
    cpus: z.string().regex(ID_LIST, 'must be vCPU ids and ranges joined by ";", e.g. "0-1;4"'),
    memoryMiB: z.number().int("must be a whole number of MiB").min(1, "at least 1 MiB"),
    /** The host NUMA nodes backing it, e.g. `"0"`; needs a policy. */
    hostNodes: z
      .string()
      .regex(ID_LIST, 'must be host node ids joined by ";", e.g. "0;1"')
      .optional(),
    policy: z.enum(["preferred", "bind", "interleave"]).optional(),
  })
  .refine((node) => node.hostNodes === undefined || node.policy !== undefined, {
    // Memory.pm: "you need to define a policy for hostnode <ids>".
    path: ["hostNodes"],
    message: "needs a policy too: PVE starts the VM only with a policy for its host nodes",
  });

export const numaSchema = z
  .array(nodeSchema)
  .min(1, "must list at least one node (or leave numa out)")
  .max(MAX_NODES, `PVE has at most ${MAX_NODES} NUMA nodes (numa0 to numa7)`);

export type NumaNode = z.output<typeof nodeSchema>;

/** The keys of `numa`: each node, and `numa: 1`, without which PVE ignores them. */
export function formatNuma(nodes: readonly NumaNode[]): Record<string, string | number> {
  return {
    numa: 1,
    ...Object.fromEntries(
      nodes.map((node, i) => [
        `numa${i}`,
        [
          `cpus=${node.cpus}`,
          ...(node.hostNodes === undefined ? [] : [`hostnodes=${node.hostNodes}`]),
          `memory=${node.memoryMiB}`,
          ...(node.policy === undefined ? [] : [`policy=${node.policy}`]),
        ].join(","),
      ]),
    ),
  };
}

/** Whether PVE's `numaN` says what the program's does: host nodes and policy only if it sets them. */
export function sameNumaKey(key: string, current: unknown, wanted: string | number): boolean {
  const now = text(current);
  if (key === "numa" || now === undefined) return now !== undefined && now === String(wanted);
  const have = propertyString(now, "cpus");
  const want = propertyString(String(wanted), "cpus");
  const optional = (option: string) => option === "hostnodes" || option === "policy";
  return ["cpus", "memory", "hostnodes", "policy"].every(
    (option) => (optional(option) && want[option] === undefined) || have[option] === want[option],
  );
}

/** The nodes as the VM holds them; host nodes and policy only where the program sets them. */
export function readNuma(config: VmConfig, input: readonly NumaNode[]): NumaNode[] {
  return input.flatMap((wanted, i): NumaNode[] => {
    const value = text(config[`numa${i}`]);
    if (value === undefined) return [];
    const parts = propertyString(value, "cpus");
    return [
      {
        cpus: parts["cpus"] ?? "",
        memoryMiB: Number(parts["memory"]),
        ...(wanted.hostNodes === undefined ? {} : { hostNodes: parts["hostnodes"] }),
        ...(wanted.policy === undefined ? {} : { policy: parts["policy"] as NumaNode["policy"] }),
      } as NumaNode,
    ];
  });
}

/** Every NUMA node the VM sets, numa0 up to the first gap (`pulumi-proxmox import`). */
export function probeNuma(config: VmConfig): NumaNode[] | undefined {
  const all: NumaNode[] = [];
  for (let i = 0; text(config[`numa${i}`]) !== undefined; i++) {
    all.push({ cpus: "", memoryMiB: 0, hostNodes: "", policy: "bind" });
  }
  if (all.length === 0) return undefined;
  // Asked for each optional part, so the read-back keeps the ones the VM has.
  return readNuma(config, all).map((node) =>
    Object.fromEntries(Object.entries(node).filter(([, v]) => v !== undefined)),
  ) as NumaNode[];
}

/** The VM's memory in MiB as the inputs say it, when they say it. */
const memoryOf = (memory: unknown): number | undefined =>
  typeof memory === "number"
    ? memory
    : typeof memory === "object" && memory !== null && "sizeMiB" in memory
      ? Number(memory.sizeMiB)
      : undefined;

/**
 * What PVE would refuse at the start: nodes whose memory does not add up to the VM's (Memory.pm,
 * "total memory for NUMA nodes must be equal to vm static memory"), or NUMA switched off.
 */
export function numaConflict(
  nodes: readonly NumaNode[],
  inputs: Readonly<Record<string, unknown>>,
): string | undefined {
  const cpu = inputs["cpu"] as { numa?: unknown } | undefined;
  if (cpu?.numa === false)
    return "needs NUMA on: remove cpu.numa: false (numa turns it on) or remove numa.";
  const memory = memoryOf(inputs["memory"]);
  const total = nodes.reduce((sum, node) => sum + node.memoryMiB, 0);
  return memory === undefined || total === memory
    ? undefined
    : `the nodes' memoryMiB add up to ${total} MiB, but PVE starts the VM only when they ` +
        `equal its memory (${memory} MiB): change a node's memoryMiB or memory.`;
}
