/**
 * The connection doctor and sweep use: their flags first, then the `proxmox:*` config of the
 * stack they are given (as the provider reads it for up, drift and destroy), then the
 * `PROXMOX_VE_*` environment. A missing or bad setting is reported as the user can set it.
 */
import { connectionFromConfig, hasCode, type ConnectionConfig } from "../provider/entry";
import { selectStack, type PulumiStack, type StackSelection } from "./automation";
import { UsageError } from "./report";

/** The connection flags as parseArgs gives them. */
export interface ConnectionFlags {
  readonly endpoint?: string | undefined;
  readonly "api-token-file"?: string | undefined;
  readonly "ca-cert"?: string | undefined;
  readonly insecure?: boolean | undefined;
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

/** The stack's `proxmox:*` settings, secrets decrypted. */
async function proxmoxConfig(stack: PulumiStack): Promise<Record<string, string>> {
  const all = await stack.getAllConfig();
  return Object.fromEntries(
    Object.entries(all)
      .filter(([key]) => key.startsWith("proxmox:"))
      .map(([key, item]) => [key, item.value]),
  );
}

/** The connection a selected stack's provider uses: its `proxmox:*` config, else PROXMOX_VE_*. */
export async function stackConnection(stack: PulumiStack, env: Env): Promise<ConnectionConfig> {
  const config = await proxmoxConfig(stack);
  return named(
    () => connectionFromConfig({ get: (key) => config[key] }, env),
    `read from stack ${stack.name}'s config`,
  );
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
  const flagged = (key: string) => {
    const flag = Object.entries(FLAG_KEYS).find(([, k]) => k === key)?.[0] as
      keyof ConnectionFlags | undefined;
    const value = flag === undefined ? undefined : flags[flag];
    return value === true ? "true" : value === false ? undefined : value;
  };
  const tokenFileFlag = flags["api-token-file"] !== undefined;
  const get = (key: string) =>
    // A token file given as a flag is the login: it wins over the stack config's token or password.
    flagged(key) ?? (tokenFileFlag && STACK_LOGIN_KEYS.has(key) ? undefined : config[key]);
  return named(
    () => connectionFromConfig({ get }, env),
    from === undefined
      ? `pass --stack to read a stack's \`proxmox:*\` config, or ${FLAGS}`
      : `read from stack ${from}'s config; ${FLAGS} take precedence`,
  );
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
