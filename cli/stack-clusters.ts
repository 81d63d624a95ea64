/**
 * The clusters a stack's state names. Each resource records the provider the engine made it
 * through (`<provider urn>::<id>`): the engine's own for the package (its settings are the stack
 * config's), or an explicit `Provider`, whose settings are its inputs in the state. The automation
 * API exports them with secrets in plain text (`stack export --show-secrets`), and they are parsed
 * as stack config is: the settings the last `up` recorded.
 */
import * as path from "node:path";
import {
  connectionFromConfig,
  hasCode,
  TEMPLATE_TYPE,
  VM_TYPE,
  type ConnectionConfig,
} from "../provider/entry";
import { DEFAULT_PROVIDER, UsageError } from "./report";

/** The type of every provider of the dynamic-provider host, ours included. */
const PROVIDER_TYPE = "pulumi:providers:pulumi-nodejs";

/** Pulumi's marker of a secret value in an exported state. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

interface StateEntry {
  readonly urn?: string;
  readonly type?: string;
  readonly provider?: string;
  readonly inputs?: Record<string, unknown>;
}

/** What this module reads of an exported state. */
export interface ClusterState {
  readonly deployment?: {
    readonly resources?: readonly StateEntry[];
    readonly pending_operations?: readonly { readonly resource?: StateEntry }[];
  };
}

/** A provider reference as the engine records it: its URN and its name (`default` for the engine's own). */
export interface ProviderRef {
  readonly urn: string;
  readonly name: string;
}

/**
 * The provider a reference (`<urn>::<id>`) points at; the engine's default provider for the
 * package (`default`, `default_3_…`) is named {@link DEFAULT_PROVIDER}.
 */
export function providerOf(ref: string | undefined): ProviderRef {
  if (ref === undefined || ref === "") return { urn: "", name: DEFAULT_PROVIDER };
  const urn = ref.slice(0, ref.lastIndexOf("::"));
  const name = urn.slice(urn.lastIndexOf("::") + 2);
  return { urn, name: /^default(_|$)/.test(name) ? DEFAULT_PROVIDER : name };
}

/** An explicit `Provider` of a state: its name and the settings its inputs hold. */
export interface ExplicitProvider {
  readonly name: string;
  readonly urn: string;
  /** `proxmox:<setting>` → text, secrets in plain text. */
  readonly settings: Readonly<Record<string, string>>;
}

/** Every resource of the state and every pending operation's resource. */
function entriesOf(state: ClusterState): StateEntry[] {
  const deployment = state.deployment;
  return [
    ...(deployment?.resources ?? []),
    ...(deployment?.pending_operations ?? []).flatMap((op) => op.resource ?? []),
  ];
}

const OURS = new Set([VM_TYPE, TEMPLATE_TYPE]);

/**
 * The state's explicit providers of this package: the `pulumi-nodejs` providers with a
 * `proxmox:*` setting, or that a ProxmoxVm or CloudImageTemplate was made through (one that
 * leaves every setting to the `PROXMOX_VE_*` environment).
 */
export function explicitProviders(state: ClusterState): ExplicitProvider[] {
  const used = new Set(
    entriesOf(state)
      .filter((entry) => OURS.has(entry.type ?? ""))
      .map((entry) => providerOf(entry.provider).urn),
  );
  return (state.deployment?.resources ?? [])
    .filter((r) => r.type === PROVIDER_TYPE && r.urn !== undefined)
    .map((r) => ({
      urn: r.urn ?? "",
      name: providerOf(`${r.urn ?? ""}::id`).name,
      inputs: r.inputs,
    }))
    .filter((p) => p.name !== DEFAULT_PROVIDER)
    .filter((p) => used.has(p.urn) || Object.keys(p.inputs ?? {}).some(isSetting))
    .map((p) => ({ name: p.name, urn: p.urn, settings: settingsOf(p.inputs ?? {}) }));
}

/** Whether a ProxmoxVm or CloudImageTemplate of the state (or a pending create) uses the stack config's cluster. */
export function usesDefaultProvider(state: ClusterState): boolean {
  return entriesOf(state).some(
    (entry) => OURS.has(entry.type ?? "") && providerOf(entry.provider).name === DEFAULT_PROVIDER,
  );
}

const isSetting = (key: string) => key.startsWith("proxmox:");

function settingsOf(inputs: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(inputs)) {
    const text = configText(value);
    if (isSetting(key) && text !== undefined) out[key] = text;
  }
  return out;
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

/** The settings that may name a file; the provider reads them from the program's directory. */
const FILE_SETTINGS = new Set(["proxmox:caCert", "proxmox:apiTokenFile"]);

/**
 * Config values as the provider sees them: a relative file path in `proxmox:caCert` or
 * `proxmox:apiTokenFile` is relative to the program's directory (where the engine starts the
 * provider), not to where the CLI runs.
 */
export function inProgramDir(
  get: (key: string) => string | undefined,
  programDir: string,
): (key: string) => string | undefined {
  return (key) => {
    const value = get(key);
    if (value === undefined || !FILE_SETTINGS.has(key) || value.includes("-----BEGIN"))
      return value;
    return value.trim() === "" ? value : path.resolve(programDir, value);
  };
}

/**
 * The connection an explicit provider's settings describe (`PROXMOX_VE_*` for what they leave
 * unset). A bad setting is reported as stack config's would be, naming the provider.
 */
export function providerConnection(
  provider: ExplicitProvider,
  env: Readonly<Record<string, string | undefined>>,
  programDir: string = process.cwd(),
): ConnectionConfig {
  const get = inProgramDir((key) => provider.settings[key], programDir);
  try {
    return connectionFromConfig({ get }, env);
  } catch (error) {
    if (!hasCode(error, "CONFIG")) throw error;
    throw new UsageError(
      `${(error as Error).message}; read from provider ${provider.name}'s inputs in the state ` +
        "(its settings as the last `pulumi up` recorded them)",
    );
  }
}
