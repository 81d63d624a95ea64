/**
 * The clusters one `sweep` covers: the stack config's (or the flags'), and each explicit
 * `Provider`'s of the given stacks, as their states recorded its settings. A VM is owned by a
 * state wherever it runs, so ownership is read from every state alike; only the connection is
 * per cluster. Two providers that name the same endpoint are one cluster, swept once.
 */
import * as path from "node:path";
import type { ConnectionConfig } from "../provider/entry";
import type { StackSelection } from "./automation";
import { connectionOf, type ConnectionFlags } from "./connection";
import { DEFAULT_PROVIDER, UsageError } from "./report";
import {
  explicitProviders,
  providerConnection,
  usesDefaultProvider,
  type ClusterState,
} from "./stack-clusters";

type Env = Readonly<Record<string, string | undefined>>;

/** One cluster to sweep. */
export interface SweepCluster {
  /** The providers that reach it, e.g. `default` or `dc2`. */
  readonly providers: readonly string[];
  /** Where its settings were read: `stack dev's config`, `its inputs in stack dev's state`. */
  readonly source: string;
  readonly connection: ConnectionConfig;
}

/** `provider dc2, pve.dc2.example.com:8006 (…)`: how the sweep heads a cluster's rows. */
export function clusterLabel(cluster: SweepCluster): string {
  const names = cluster.providers.join(" and ");
  return `provider ${names}, ${new URL(cluster.connection.origin).host} (${cluster.source})`;
}

const inState = (stack: string) => `its inputs in stack ${stack}'s state`;

/**
 * The clusters to sweep, given the stacks' `states` in their order; with `only`, the one of that
 * provider (`default`: the stack config's).
 * The stack config's cluster is left out when it is not set up and nothing needs it: every VM
 * and template of the states is an explicit provider's, and no connection flag was given.
 */
export async function sweepClusters(
  flags: ConnectionFlags,
  stacks: readonly StackSelection[],
  states: readonly ClusterState[],
  env: Env,
  only?: string,
): Promise<SweepCluster[]> {
  if (only !== undefined) {
    const one = await connectionOf(flags, stacks, env, only);
    const [stack] = stacks;
    const explicit = only !== DEFAULT_PROVIDER && stack !== undefined;
    const source = explicit ? inState(stack.stack) : one.source;
    return [{ providers: [only], source, connection: one.connection }];
  }
  const clusters: SweepCluster[] = [];
  let defaultNeeded = Object.values(flags).some((value) => value !== undefined);
  const explicit: SweepCluster[] = [];
  for (const [i, selection] of stacks.entries()) {
    const state = states[i] ?? {};
    const dir = path.resolve(selection.cwd ?? process.cwd());
    defaultNeeded ||= usesDefaultProvider(state);
    for (const provider of explicitProviders(state)) {
      explicit.push({
        providers: [provider.name],
        source: inState(selection.stack),
        connection: providerConnection(provider, env, dir),
      });
    }
  }
  try {
    const stackConfig = await connectionOf(flags, stacks, env);
    clusters.push({ providers: [DEFAULT_PROVIDER], ...stackConfig });
  } catch (error) {
    if (!(error instanceof UsageError) || defaultNeeded || explicit.length === 0) throw error;
  }
  for (const cluster of explicit) {
    const same = clusters.find((c) => c.connection.origin === cluster.connection.origin);
    if (same === undefined) clusters.push(cluster);
    else if (!same.providers.includes(cluster.providers[0] ?? "")) {
      clusters[clusters.indexOf(same)] = {
        ...same,
        providers: [...same.providers, ...cluster.providers],
      };
    }
  }
  return clusters;
}
