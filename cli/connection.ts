/**
 * The connection doctor and sweep use: their flags first, then the `proxmox:*` config of the
 * stack they are given (as the provider reads it for up, drift and destroy) or the settings of
 * one of its explicit `Provider`s, then the `PROXMOX_VE_*` environment. A missing or bad setting
 * is reported as the user can set it.
 */
import * as path from "node:path";
import { connectionFromConfig, hasCode, type ConnectionConfig } from "../provider/entry";
import { selectStack, type PulumiStack, type StackSelection } from "./automation";
import { DEFAULT_PROVIDER, UsageError } from "./report";
import {
  explicitProviders,
  inProgramDir,
  type ClusterState,
  type ExplicitProvider,
} from "./stack-clusters";

/** The connection flags as parseArgs gives them. */
export interface ConnectionFlags {
  readonly endpoint?: string | undefined;
  readonly "api-token-file"?: string | undefined;
  readonly "ca-cert"?: string | undefined;
  readonly insecure?: boolean | undefined;
}

/** The connection flags among a command's parsed flags. */
export function connectionFlags(values: ConnectionFlags): ConnectionFlags {
  return {
    endpoint: values.endpoint,
    "api-token-file": values["api-token-file"],
    "ca-cert": values["ca-cert"],
    insecure: values.insecure,
  };
}

/** The stack config's login settings, which a --api-token-file flag replaces whole. */
const STACK_LOGIN_KEYS: ReadonlySet<string> = new Set([
  "proxmox:apiToken",
  "proxmox:username",
  "proxmox:password",
]);

type Env = Readonly<Record<string, string | undefined>>;

/** Each flag and the stack config key it stands in for. */
const FLAG_KEYS = {
  endpoint: "proxmox:endpoint",
  "api-token-file": "proxmox:apiTokenFile",
  "ca-cert": "proxmox:caCert",
  insecure: "proxmox:insecure",
} as const;

/** The stack's `proxmox:*` settings, secrets decrypted, file paths as the provider reads them. */
async function proxmoxConfig(stack: PulumiStack): Promise<Record<string, string>> {
  const all = await stack.getAllConfig();
  const config: Record<string, string> = Object.fromEntries(
    Object.entries(all)
      .filter(([key]) => key.startsWith("proxmox:"))
      .map(([key, item]) => [key, item.value]),
  );
  const get = inProgramDir((key) => config[key], stack.workspace.workDir);
  return Object.fromEntries(Object.keys(config).map((key) => [key, get(key) ?? ""]));
}

/** The connection a selected stack's provider uses: its `proxmox:*` config, else PROXMOX_VE_*. */
export async function stackConnection(stack: PulumiStack, env: Env): Promise<ConnectionConfig> {
  const config = await proxmoxConfig(stack);
  return named(
    () => connectionFromConfig({ get: (key) => config[key] }, env),
    `read from stack ${stack.name}'s config`,
  );
}

/** The explicit providers of a stack's state, as its last `up` recorded them. */
export async function stackProviders(selection: StackSelection): Promise<ExplicitProvider[]> {
  const stack = await selectStack(selection);
  return explicitProviders((await stack.exportStack()) as ClusterState);
}

/** The explicit provider `name` of the stack; refused, naming those there are, when it has none of that name. */
async function namedProvider(name: string, selection: StackSelection) {
  const providers = await stackProviders(selection);
  const found = providers.find((p) => p.name === name);
  if (found !== undefined) return found;
  const names = [DEFAULT_PROVIDER, ...providers.map((p) => p.name)].join(", ");
  throw new UsageError(
    `stack ${selection.stack} has no provider named ${name}: its state names ${names} ` +
      `(${DEFAULT_PROVIDER}: the stack config's cluster). A Provider is in the state once ` +
      "`pulumi up` has run with it.",
  );
}

/** A connection and where its settings were read, for the user. */
export interface CommandConnection {
  readonly connection: ConnectionConfig;
  /** `provider dc2 of stack dev`, `stack dev's config`, or `the flags and environment`. */
  readonly source: string;
}

/**
 * Flags, then the given stacks' config, then the environment. Stacks that name different
 * endpoints are refused: their VMs live on different clusters, and one run sees one.
 */
export async function commandConnection(
  flags: ConnectionFlags,
  stacks: readonly StackSelection[],
  env: Env = process.env,
): Promise<ConnectionConfig> {
  return (await connectionOf(flags, stacks, env)).connection;
}

/**
 * {@link commandConnection}, or with `provider` (the name of an explicit `Provider` of the one
 * stack given) that provider's settings in place of the stack config; says which it read.
 */
export async function connectionOf(
  flags: ConnectionFlags,
  stacks: readonly StackSelection[],
  env: Env = process.env,
  provider?: string,
): Promise<CommandConnection> {
  if (provider !== undefined && provider !== DEFAULT_PROVIDER) {
    const [selection, ...others] = stacks;
    if (selection === undefined || others.length > 0) {
      throw new UsageError(
        `--provider ${provider} needs exactly one --stack: the stack whose state holds it`,
      );
    }
    const found = await namedProvider(provider, selection);
    const dir = path.resolve(selection.cwd ?? process.cwd());
    const settings = inProgramDir((key) => found.settings[key], dir);
    const source = `provider ${provider} of stack ${selection.stack}`;
    const connection = withFlags(
      flags,
      settings,
      env,
      `read from ${source}'s inputs in the state; ${FLAGS} take precedence`,
    );
    return { connection, source };
  }
  let config: Record<string, string> = {};
  let from: string | undefined;
  for (const selection of stacks) {
    const theirs = await proxmoxConfig(await selectStack(selection));
    const endpoint = theirs["proxmox:endpoint"];
    if (from === undefined) {
      [config, from] = [theirs, selection.stack];
    } else if (flags.endpoint === undefined && endpoint !== config["proxmox:endpoint"]) {
      throw new UsageError(
        `stacks ${from} and ${selection.stack} set different \`proxmox:endpoint\`s ` +
          `(${config["proxmox:endpoint"] ?? "unset"} and ${endpoint ?? "unset"}): ` +
          "sweep one cluster at a time, or pass --endpoint",
      );
    }
  }
  const connection = withFlags(
    flags,
    (key) => config[key],
    env,
    from === undefined
      ? `pass --stack to read a stack's \`proxmox:*\` config, or ${FLAGS}`
      : `read from stack ${from}'s config; ${FLAGS} take precedence`,
  );
  return {
    connection,
    source: from === undefined ? "the flags and environment" : `stack ${from}'s config`,
  };
}

/** The flags over `config`'s settings, then the environment. */
function withFlags(
  flags: ConnectionFlags,
  config: (key: string) => string | undefined,
  env: Env,
  where: string,
): ConnectionConfig {
  const flagged = (key: string) => {
    const flag = Object.entries(FLAG_KEYS).find(([, k]) => k === key)?.[0] as
      keyof ConnectionFlags | undefined;
    const value = flag === undefined ? undefined : flags[flag];
    return value === true ? "true" : value === false ? undefined : value;
  };
  const tokenFileFlag = flags["api-token-file"] !== undefined;
  const get = (key: string) =>
    // A token file given as a flag is the login: it wins over the config's token or password.
    flagged(key) ?? (tokenFileFlag && STACK_LOGIN_KEYS.has(key) ? undefined : config(key));
  return named(() => connectionFromConfig({ get }, env), where);
}

const FLAGS = "the flags --endpoint, --api-token-file, --ca-cert, --insecure";

/** A config error says where the setting was looked for and where else it can be given. */
function named<T>(parse: () => T, where: string): T {
  try {
    return parse();
  } catch (error) {
    if (!hasCode(error, "CONFIG")) throw error;
    throw new UsageError(`${(error as Error).message}; ${where}`);
  }
}
