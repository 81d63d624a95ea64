/**
 * Pure placement of a fleet's members on nodes. No I/O: the least-loaded policy is decided from
 * node loads the caller read from ONE cluster listing (see {@link nodeLoadsFromListing}), so the
 * same inputs always give the same placement.
 */

/**
 * - `"round-robin"`: member `i` goes to `nodes[i % nodes.length]`; depends on nothing but the
 *   index and the order of `nodes`.
 * - `"least-loaded"`: members go, one at a time in index order, to the node with the lowest
 *   load, where each member placed adds 1 to its node's load; ties go to the node listed first
 *   in `nodes`. Loads are counts of guests (or any weight in guest units).
 */
export type PlacementPolicy = "round-robin" | "least-loaded";

/** The node of each member, index by index. */
export function placeMembers(
  count: number,
  nodes: readonly string[],
  policy: PlacementPolicy,
  nodeLoads: Readonly<Record<string, number>> = {},
): string[] {
  validate(count, nodes);
  if (policy === "round-robin") {
    return Array.from({ length: count }, (_, i) => nodes[i % nodes.length] as string);
  }
  if (policy !== "least-loaded") {
    throw new TypeError(
      `[placement] must be "round-robin" or "least-loaded", got ${String(policy)}`,
    );
  }
  const loads = nodes.map((node) => {
    const load = nodeLoads[node] ?? 0;
    if (!Number.isFinite(load) || load < 0) {
      throw new RangeError(`[nodeLoads] of ${node} must be a finite number >= 0, got ${load}`);
    }
    return load;
  });
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

function validate(count: number, nodes: readonly string[]): void {
  if (!Number.isInteger(count) || count < 0) {
    throw new RangeError(`[count] must be a non-negative integer, got ${count}`);
  }
  if (nodes.length === 0) throw new RangeError("[nodes] must name at least one node");
  const seen = new Set<string>();
  for (const node of nodes) {
    if (node === "") throw new RangeError("[nodes] must not contain an empty name");
    if (seen.has(node)) throw new RangeError(`[nodes] lists ${node} twice`);
    seen.add(node);
  }
}
