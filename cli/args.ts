/**
 * Flag parsing on `node:util`'s parseArgs: the flags the engine commands share, the connection
 * flags of doctor and sweep, and the output streams every subcommand writes to.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { parseConnectionConfig, type ConnectionConfig } from "../provider/pve/config";
import { UsageError } from "./report";

/** Where a subcommand writes: stdout for results and progress, stderr for problems. */
export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

export const processIo: Io = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

type Options = NonNullable<ParseArgsConfig["options"]>;

/** parseArgs, strict, with its errors turned into {@link UsageError}s. */
export function parseFlags<T extends Options>(argv: readonly string[], options: T) {
  try {
    return parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export const STACK_FLAGS = {
  stack: { type: "string" },
  cwd: { type: "string" },
  backend: { type: "string" },
  report: { type: "string" },
  quiet: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies Options;

export const CONNECTION_FLAGS = {
  endpoint: { type: "string" },
  "api-token-file": { type: "string" },
  "ca-cert": { type: "string" },
  insecure: { type: "boolean" },
} as const satisfies Options;

/** Flags first, then the PROXMOX_VE_* environment (provider/pve/config.ts). */
export function connectionFrom(
  values: { endpoint?: string; "api-token-file"?: string; "ca-cert"?: string; insecure?: boolean },
  env: Readonly<Record<string, string | undefined>> = process.env,
): ConnectionConfig {
  return parseConnectionConfig(
    {
      endpoint: values.endpoint,
      apiTokenFile: values["api-token-file"],
      caCert: values["ca-cert"],
      insecure: values.insecure === true ? "true" : undefined,
    },
    { env },
  );
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === "") throw new UsageError(`--${flag} is required`);
  return value;
}

export const CONNECTION_HELP = `Connection (flags, else the environment):
  --endpoint URL          PROXMOX_VE_ENDPOINT, e.g. https://pve1:8006
  --api-token-file FILE   PROXMOX_VE_API_TOKEN_FILE; or PROXMOX_VE_API_TOKEN=user@realm!name=secret;
                          or a password login: PROXMOX_VE_USERNAME=user@realm, PROXMOX_VE_PASSWORD
  --ca-cert PEM|FILE      PROXMOX_VE_CA_CERT
  --insecure              PROXMOX_VE_INSECURE=true (skip TLS verification)`;

export const STACK_HELP = `Stack:
  --stack NAME            the stack (dev, org/project/dev); required
  --cwd DIR               the program directory (default: the current directory)
  --backend URL           the state backend (default: PULUMI_BACKEND_URL or pulumi login)
  --report FILE           also write the JSON report there
  --parallel N            resource operations at once (default 128: VM work is I/O-bound)
  --quiet                 do not stream the engine's progress`;
