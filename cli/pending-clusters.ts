/**
 * Which cluster each pending create was being made on: the provider the engine recorded with it.
 * The stack's default provider is the stack config's cluster; an explicit `Provider`'s settings
 * are its inputs in the state, which the automation API exports with secrets in plain text
 * (`stack export --show-secrets`), and which are parsed as stack config is.
 */
import { identityOfInputs } from "../provider/entry";
import {
  connectionInput,
  parseConnectionConfig,
  type ConnectionConfig,
} from "../provider/pve/config";
import { VM_TYPE } from "./sweep-owners";

/** The pending creates of one cluster. */
export interface PendingCluster {
  /** The `Provider`'s name; undefined for the stack config's cluster. */
  readonly provider?: string | undefined;
  /** The explicit provider's connection; undefined: the stack config's. */
  readonly connection?: ConnectionConfig | undefined;
  readonly identities: ReadonlySet<string>;
}

interface StateEntry {
  readonly urn?: string;
  readonly type?: string;
  readonly provider?: string;
  readonly inputs?: Record<string, unknown>;
  readonly outputs?: Record<string, unknown>;
}

export interface ProviderDeployment {
  readonly deployment?: {
    readonly resources?: readonly StateEntry[];
    readonly pending_operations?: readonly {
      readonly resource?: StateEntry;
      readonly type?: string;
    }[];
  };
}

/** Pulumi's marker of a secret value in an exported state. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/** The pending creates among `identities`, grouped by the cluster their provider talks to. */
export function pendingCreatesByCluster(
  state: ProviderDeployment,
  identities: ReadonlySet<string>,
  env: Readonly<Record<string, string | undefined>>,
): PendingCluster[] {
  const byProvider = new Map<string, Set<string>>();
  for (const op of state.deployment?.pending_operations ?? []) {
    const resource = op.resource;
    if (resource?.type !== VM_TYPE || (op.type !== undefined && op.type !== "creating")) continue;
    const hash = resource.outputs?.["identityHash"];
    const identity =
      typeof hash === "string" ? hash : resource.inputs && identityOfInputs(resource.inputs);
    if (identity === undefined || !identities.has(identity)) continue;
    const ref = resource.provider ?? "";
    byProvider.set(ref, (byProvider.get(ref) ?? new Set()).add(identity));
  }
  return [...byProvider].map(([ref, ids]) => {
    const urn = ref.slice(0, ref.lastIndexOf("::"));
    const name = urn.slice(urn.lastIndexOf("::") + 2);
    // The engine's own provider for the package: its settings are the stack config's.
    if (ref === "" || /^default(_|$)/.test(name)) return { identities: ids };
    const inputs = state.deployment?.resources?.find((r) => r.urn === urn)?.inputs ?? {};
    const connection = parseConnectionConfig(
      connectionInput((key) => configText(inputs[key])),
      { env },
    );
    return { provider: name, connection, identities: ids };
  });
}

/** A provider input as config text, a secret's plain text included. */
function configText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value !== null && typeof value === "object" && SECRET_SIG in value) {
    const secret = value as { plaintext?: unknown; value?: unknown };
    if (typeof secret.plaintext === "string") return configText(JSON.parse(secret.plaintext));
    return configText(secret.value);
  }
  return value === undefined || value === null ? undefined : String(value);
}
