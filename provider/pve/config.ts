import { readFileSync } from "node:fs";
import { z } from "zod";
import { PermanentError } from "./errors.js";
import { Secret } from "./secret.js";

/**
 * Connection settings for one PVE endpoint, parsed once from provider config (an object of
 * strings) with environment fallbacks. The token secret is wrapped in a {@link Secret} as soon
 * as it is read, so nothing downstream can print it.
 */
export interface ConnectionConfig {
  /** Origin of the API, e.g. `https://pve1.example.com:8006` (no path, no trailing slash). */
  readonly origin: string;
  /** `user@realm!tokenname`: not secret, safe to log. */
  readonly tokenId: string;
  readonly secret: Secret;
  /** PEM text of the CA (or self-signed certificate) to trust instead of the system store. */
  readonly caCert?: string | undefined;
  /** Skip TLS verification: an explicit opt-in that logs a warning on every run. */
  readonly insecure: boolean;
  /** Connections the provider process keeps open to the endpoint: its concurrent requests. */
  readonly maxConnections: number;
  /** Clones and migrations the provider process runs at once per node; undefined: no bound. */
  readonly heavyTasksPerNode?: number | undefined;
}

/**
 * Default of `maxConnections`. A node answers three requests at once (pvedaemon's workers), so
 * more connections only queue there; fewer made `bench:scale`'s 100 VMs queue their clone
 * requests behind other VMs' task polls in the client (4 connections: see docs/design.md,
 * "Bounded requests per endpoint").
 */
export const DEFAULT_MAX_CONNECTIONS = 8;

/** Keys of the string object accepted by {@link parseConnectionConfig}. */
export interface ConnectionConfigInput {
  readonly endpoint?: string | undefined;
  /** `user@realm!tokenname=secret` (PVE's own format, optionally prefixed `PVEAPIToken=`). */
  readonly apiToken?: string | undefined;
  /** Path of a file holding the token, for secrets mounted as files. */
  readonly apiTokenFile?: string | undefined;
  readonly insecure?: string | undefined;
  /** PEM text, or the path of a PEM file. */
  readonly caCert?: string | undefined;
  /** A whole number from 1 to 64. */
  readonly maxConnections?: string | undefined;
  /** A whole number from 1 to 64; unset: no bound. */
  readonly heavyTasksPerNode?: string | undefined;
}

export interface ConfigSources {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly readFile?: (path: string) => string;
}

const TOKEN_ID = /^[^@\s=!]+@[^@\s=!]+![A-Za-z][A-Za-z0-9._-]+$/;

const inputSchema = z.object({
  endpoint: z
    .string({ error: "is required (stack config `proxmox:endpoint`, or PROXMOX_VE_ENDPOINT)" })
    .trim()
    .pipe(z.url({ protocol: /^https?$/, error: "must be an http(s) URL, e.g. https://pve1:8006" })),
  apiToken: z
    .string({
      error:
        "is required (stack config `proxmox:apiToken` or `proxmox:apiTokenFile`, or PROXMOX_VE_API_TOKEN or PROXMOX_VE_API_TOKEN_FILE)",
    })
    .trim()
    .min(1, "is empty"),
  insecure: z.enum(["true", "false", "1", "0", ""], { error: "must be true or false" }).optional(),
  caCert: z.string().trim().optional(),
  maxConnections: countTo64().default(DEFAULT_MAX_CONNECTIONS),
  heavyTasksPerNode: countTo64().optional(),
});

/** A whole number from 1 to 64, from config's text: the bound of both per-process limits. */
function countTo64() {
  const message = "must be a whole number from 1 to 64";
  return z.coerce.number({ error: message }).int(message).min(1, message).max(64, message);
}

function configError(message: string): PermanentError {
  return new PermanentError("CONFIG", `Proxmox connection config: ${message}`);
}

/** Splits `user@realm!name=secret` at the last `=`, as PVE does; never echoes the input. */
function parseToken(raw: string): { tokenId: string; secret: Secret } {
  const value = raw.replace(/^PVEAPIToken[= ]/, "");
  const at = value.lastIndexOf("=");
  const tokenId = at > 0 ? value.slice(0, at) : "";
  const secret = at > 0 ? value.slice(at + 1) : "";
  if (!TOKEN_ID.test(tokenId) || secret.length === 0) {
    throw configError(
      "apiToken must look like `user@realm!tokenname=secret` (the token id, an `=`, then the secret)",
    );
  }
  return { tokenId, secret: new Secret(secret) };
}

function readPem(value: string, readFile: (path: string) => string): string {
  if (value.includes("-----BEGIN")) return value;
  let text: string;
  try {
    text = readFile(value);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw configError(`caCert file ${value} cannot be read (${String(code ?? "error")})`);
  }
  if (!text.includes("-----BEGIN")) throw configError(`caCert file ${value} holds no PEM data`);
  return text;
}

/**
 * Parses connection settings. Precedence: the explicit `input` value, then the environment
 * (`PROXMOX_VE_ENDPOINT`, `PROXMOX_VE_API_TOKEN`, `PROXMOX_VE_API_TOKEN_FILE`,
 * `PROXMOX_VE_INSECURE`, `PROXMOX_VE_CA_CERT`, `PROXMOX_VE_MAX_CONNECTIONS`,
 * `PROXMOX_VE_HEAVY_TASKS_PER_NODE`). Throws a `CONFIG` {@link PermanentError} that
 * names the setting and never contains the token.
 */
export function parseConnectionConfig(
  input: ConnectionConfigInput = {},
  sources: ConfigSources = {},
): ConnectionConfig {
  const env = sources.env ?? process.env;
  const readFile = sources.readFile ?? ((path: string) => readFileSync(path, "utf8"));
  const pick = (value: string | undefined, name: string) =>
    value !== undefined && value.trim() !== "" ? value : env[name];

  let apiToken = pick(input.apiToken, "PROXMOX_VE_API_TOKEN");
  const tokenFile = pick(input.apiTokenFile, "PROXMOX_VE_API_TOKEN_FILE");
  if ((apiToken === undefined || apiToken.trim() === "") && tokenFile) {
    try {
      apiToken = readFile(tokenFile);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw configError(`apiTokenFile ${tokenFile} cannot be read (${String(code ?? "error")})`);
    }
  }

  const parsed = inputSchema.safeParse({
    endpoint: pick(input.endpoint, "PROXMOX_VE_ENDPOINT"),
    apiToken,
    insecure: pick(input.insecure, "PROXMOX_VE_INSECURE")?.trim().toLowerCase(),
    caCert: pick(input.caCert, "PROXMOX_VE_CA_CERT"),
    maxConnections: pick(input.maxConnections, "PROXMOX_VE_MAX_CONNECTIONS")?.trim() || undefined,
    heavyTasksPerNode:
      pick(input.heavyTasksPerNode, "PROXMOX_VE_HEAVY_TASKS_PER_NODE")?.trim() || undefined,
  });
  if (!parsed.success) {
    // Name the field and zod's complaint; never the received value (it may be the token).
    const issue = parsed.error.issues[0];
    throw configError(`${issue?.path.join(".") ?? "config"} ${issue?.message ?? "is invalid"}`);
  }
  const { endpoint, insecure, caCert } = parsed.data;
  const url = new URL(endpoint);
  if (url.pathname !== "/" && !/^\/api2\/json\/?$/.test(url.pathname)) {
    throw configError("endpoint must be the server's origin, e.g. https://pve1:8006");
  }
  return {
    origin: url.origin,
    ...parseToken(parsed.data.apiToken),
    caCert: caCert ? readPem(caCert, readFile) : undefined,
    insecure: insecure === "true" || insecure === "1",
    maxConnections: parsed.data.maxConnections,
    heavyTasksPerNode: parsed.data.heavyTasksPerNode,
  };
}
