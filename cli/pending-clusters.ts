/**
 * Which cluster each pending create was being made on: the provider the engine recorded with it
 * (see stack-clusters.ts for how a provider's settings are read from the state).
 */
import { identityOfInputs, VM_TYPE, type ConnectionConfig } from "../provider/entry";
import { DEFAULT_PROVIDER } from "./report";
import {
  explicitProviders,
  providerConnection,
  providerOf,
  type ClusterState,
} from "./stack-clusters";

/** The pending creates of one cluster. */
export interface PendingCluster {
  /** The `Provider`'s name; undefined for the stack config's cluster. */
  readonly provider?: string | undefined;
  /** The explicit provider's connection; undefined: the stack config's. */
  readonly connection?: ConnectionConfig | undefined;
  readonly identities: ReadonlySet<string>;
}

interface PendingEntry {
  readonly type?: string;
  readonly provider?: string;
  readonly inputs?: Record<string, unknown>;
  readonly outputs?: Record<string, unknown>;
}

export interface ProviderDeployment extends ClusterState {
  readonly deployment?: ClusterState["deployment"] & {
    readonly pending_operations?: readonly {
      readonly resource?: PendingEntry;
      readonly type?: string;
    }[];
  };
}

/** The pending creates among `identities`, grouped by the cluster their provider talks to. */
export function pendingCreatesByCluster(
  state: ProviderDeployment,
  identities: ReadonlySet<string>,
  env: Readonly<Record<string, string | undefined>>,
  programDir?: string,
): PendingCluster[] {
  const byProvider = new Map<string, Set<string>>();
  for (const op of state.deployment?.pending_operations ?? []) {
    const resource = op.resource;
    if (resource?.type !== VM_TYPE || (op.type !== undefined && op.type !== "creating")) continue;
    const hash = resource.outputs?.["identityHash"];
    const identity =
      typeof hash === "string" ? hash : resource.inputs && identityOfInputs(resource.inputs);
    if (identity === undefined || !identities.has(identity)) continue;
    const { urn } = providerOf(resource.provider);
    byProvider.set(urn, (byProvider.get(urn) ?? new Set()).add(identity));
  }
  const explicit = explicitProviders(state);
  return [...byProvider].map(([urn, ids]) => {
    const provider = explicit.find((p) => p.urn === urn);
    // The engine's own provider for the package: its settings are the stack config's.
    if (provider === undefined || provider.name === DEFAULT_PROVIDER) return { identities: ids };
    const connection = providerConnection(provider, env, programDir);
    return { provider: provider.name, connection, identities: ids };
  });
}
