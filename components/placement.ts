/**
 * Pure placement of a fleet's members on nodes. No I/O: the least-loaded policy is decided from
 * node loads the caller read from ONE cluster listing (see {@link nodeLoadsFromListing}), so the
 * same inputs always give the same placement.
 */
import { z } from "zod";

/** The rules of a fleet's own inputs that placement depends on, shared with `VmFleet`'s check. */
export const countSchema = z.number().refine((count) => Number.isInteger(count) && count >= 0, {
  error: (issue) => `must be a non-negative integer, got ${String(issue.input)}`,
});

export const nodesSchema = z.array(z.string()).superRefine((nodes, ctx) => {
  if (nodes.length === 0) ctx.addIssue({ code: "custom", message: "must name at least one node" });
  if (nodes.includes(""))
    ctx.addIssue({ code: "custom", message: "must not contain an empty name" });
  const twice = nodes.find((node, i) => node !== "" && nodes.indexOf(node) < i);
  if (twice !== undefined) ctx.addIssue({ code: "custom", message: `lists ${twice} twice` });
});

export const placementSchema = z.enum(["round-robin", "least-loaded"], {
  error: (issue) => `must be "round-robin" or "least-loaded", got ${String(issue.input)}`,
});

/**
 * - `"round-robin"`: member `i` goes to `nodes[i % nodes.length]`; depends on nothing but the
 *   index and the order of `nodes`.
 * - `"least-loaded"`: members go, one at a time in index order, to the node with the lowest
 *   load, where each member placed adds 1 to its node's load; ties go to the node listed first
 *   in `nodes`. Loads are counts of guests (or any weight in guest units).
 */
export type PlacementPolicy = z.infer<typeof placementSchema>;

export const nodeLoadSchema = z.number().refine((load) => Number.isFinite(load) && load >= 0, {
  error: (issue) => `must be a finite number >= 0, got ${String(issue.input)}`,
});

/** The node of each member, index by index. */
export function placeMembers(
  count: number,
  nodes: readonly string[],
  policy: PlacementPolicy,
  nodeLoads: Readonly<Record<string, number>> = {},
): string[] {
  valid(countSchema, count, "[count]", RangeError);
  valid(nodesSchema, nodes, "[nodes]", RangeError);
  valid(placementSchema, policy, "[placement]", TypeError);
  if (policy === "round-robin") {
    return Array.from({ length: count }, (_, i) => nodes[i % nodes.length] as string);
  }
  const loads = nodes.map((node) =>
    valid(nodeLoadSchema, nodeLoads[node] ?? 0, `[nodeLoads] of ${node}`, RangeError),
  );
  const placed: string[] = [];
  for (let i = 0; i < count; i++) {
    let best = 0;
    for (let n = 1; n < nodes.length; n++) {
      if ((loads[n] as number) < (loads[best] as number)) best = n;
    }
    placed.push(nodes[best] as string);
    loads[best] = (loads[best] as number) + 1;
  }
  return placed;
}

/** One entry of PVE's `GET /cluster/resources` (only the fields used here). */
export interface ClusterResource {
  readonly type: string;
  readonly node?: string;
  readonly template?: number | boolean;
}

/**
 * Node loads from one `GET /cluster/resources` listing (e.g. `pvesh get /cluster/resources
 * --type vm --output-format json`): the number of guests (QEMU VMs and LXC containers, but not
 * templates) on each node. Nodes without guests are absent, which {@link placeMembers} reads
 * as 0.
 */
export function nodeLoadsFromListing(listing: readonly ClusterResource[]): Record<string, number> {
  const loads: Record<string, number> = {};
  for (const entry of listing) {
    if ((entry.type !== "qemu" && entry.type !== "lxc") || entry.node === undefined) continue;
    if (entry.template === 1 || entry.template === true) continue;
    loads[entry.node] = (loads[entry.node] ?? 0) + 1;
  }
  return loads;
}

/** The value, or its first problem thrown as `Kind` with the argument's name in front. */
function valid<T>(
  schema: z.ZodType<T>,
  value: unknown,
  name: string,
  Kind: new (message: string) => Error,
): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new Kind(`${name} ${parsed.error.issues[0]?.message ?? "is invalid"}`);
}
