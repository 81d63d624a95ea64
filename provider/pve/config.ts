import { readFileSync } from "node:fs";
import { z } from "zod";
import { PermanentError } from "./errors.js";
import { CONNECTION_SETTINGS, type ConnectionSetting } from "./connection-settings.js";
import { Secret } from "./secret.js";

/**
 * Connection settings for one PVE endpoint, parsed once from provider config (an object of
 * strings) with environment fallbacks. The token secret and the password are wrapped in a
 * {@link Secret} as soon as they are read, so nothing downstream can print them.
 */
export interface ConnectionConfig {
  /** Origin of the API, e.g. `https://pve1.example.com:8006` (no path, no trailing slash). */
  readonly origin: string;
  /** How requests are authenticated: an API token, or a password login's tickets. */
  readonly login: Login;
  /** PEM text of the CA (or self-signed certificate) to trust instead of the system store. */
  readonly caCert?: string | undefined;
  /** Skip TLS verification: an explicit opt-in that logs a warning on every run. */
  readonly insecure: boolean;
  /** Connections the provider process keeps open to the endpoint: its concurrent requests. */
  readonly maxConnections: number;
  /** Clones and migrations the provider process runs at once per node; undefined: no bound. */
  readonly heavyTasksPerNode?: number | undefined;
}

export type Login = TokenLogin | PasswordLogin;

/** An API token: sent whole with every request. */
export interface TokenLogin {
  readonly kind: "token";
  /** `user@realm!tokenname`: not secret, safe to log. */
  readonly tokenId: string;
  readonly secret: Secret;
}

/** A user and password: traded for login tickets (`POST /access/ticket`) by the HTTP layer. */
export interface PasswordLogin {
  readonly kind: "password";
  /** `user@realm`: not secret, safe to log. */
  readonly username: string;
  readonly password: Secret;
}

/** Who a login is, for messages: `token root@pam!ci` or `user root@pam`. Never secret. */
export function loginName(login: Login): string {
  return login.kind === "token" ? `token ${login.tokenId}` : `user ${login.username}`;
}

/**
 * Default of `maxConnections`. A node answers three requests at once (pvedaemon's workers), so
 * more connections only queue there; fewer made `bench:scale`'s 100 VMs queue their clone
 * requests behind other VMs' task polls in the client (4 connections: see docs/design.md,
 * "Bounded requests per endpoint").
 */
export const DEFAULT_MAX_CONNECTIONS = 8;

/** The string object accepted by {@link parseConnectionConfig}: one value per setting. */
export type ConnectionConfigInput = { readonly [K in ConnectionSetting]?: string | undefined };

/** The settings of a config whose keys are `proxmox:<name>` (stack config, `Provider` inputs). */
export function connectionInput(get: (key: string) => string | undefined): ConnectionConfigInput {
  const input: Partial<Record<ConnectionSetting, string | undefined>> = {};
  for (const name of Object.keys(CONNECTION_SETTINGS) as ConnectionSetting[]) {
    input[name] = get(`proxmox:${name}`);
  }
  return input;
}

export interface ConfigSources {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly readFile?: (path: string) => string;
}

const TOKEN_ID = /^[^@\s=!]+@[^@\s=!]+![A-Za-z][A-Za-z0-9._-]+$/;
/** pve-access-control's `pve-userid` format: a name without `@`, `:`, `/` or `!`, then the realm. */
const USER_ID = /^[^@\s:/!]+@[A-Za-z][A-Za-z0-9._-]+$/;

const inputSchema = z.object({
  endpoint: z
    .string({ error: "is required (config `endpoint` or PROXMOX_VE_ENDPOINT)" })
    .trim()
    .pipe(z.url({ protocol: /^https?$/, error: "must be an http(s) URL, e.g. https://pve1:8006" })),
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
function parseToken(raw: string): TokenLogin {
  const value = raw.trim().replace(/^PVEAPIToken[= ]/, "");
  const at = value.lastIndexOf("=");
  const tokenId = at > 0 ? value.slice(0, at) : "";
  const secret = at > 0 ? value.slice(at + 1) : "";
  if (!TOKEN_ID.test(tokenId) || secret.length === 0) {
    throw configError(
      "apiToken must look like `user@realm!tokenname=secret` (the token id, an `=`, then the secret)",
    );
  }
  return { kind: "token", tokenId, secret: new Secret(secret) };
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

const LOGIN_SETTINGS = ["apiToken", "apiTokenFile", "username", "password"] as const;

/**
 * The login, from one place: the input's when it names any login setting, else the
 * environment's. So a token in PROXMOX_VE_API_TOKEN never meets a password from the stack config
 * (or a `Provider`): each cluster's login is whole where it is written.
 */
function parseLogin(
  input: ConnectionConfigInput,
  env: Readonly<Record<string, string | undefined>>,
  readFile: (path: string) => string,
): Login {
  const given = (value: string | undefined): value is string =>
    value !== undefined && value.trim() !== "";
  const fromInput = LOGIN_SETTINGS.some((name) => given(input[name]));
  const value = (name: (typeof LOGIN_SETTINGS)[number]) =>
    fromInput ? input[name] : env[CONNECTION_SETTINGS[name].env];
  const named = (name: (typeof LOGIN_SETTINGS)[number]) =>
    fromInput ? name : CONNECTION_SETTINGS[name].env;

  const tokenSetting = (["apiToken", "apiTokenFile"] as const).find((n) => given(value(n)));
  const passwordSettings = (["username", "password"] as const).filter((n) => given(value(n)));
  if (tokenSetting !== undefined && passwordSettings.length > 0) {
    const where = fromInput ? "in the config" : "in the environment";
    throw configError(
      `${named(tokenSetting)} and ${passwordSettings.map(named).join(" and ")} are both set ` +
        `${where}: a login is an API token or a username and password, not both. Remove one.`,
    );
  }
  if (tokenSetting === "apiToken") return parseToken(value("apiToken") ?? "");
  if (tokenSetting === "apiTokenFile") {
    const file = value("apiTokenFile") ?? "";
    try {
      return parseToken(readFile(file));
    } catch (error) {
      if (error instanceof PermanentError) throw error;
      const code = (error as { code?: unknown }).code;
      throw configError(`apiTokenFile ${file} cannot be read (${String(code ?? "error")})`);
    }
  }
  const username = value("username");
  const password = value("password");
  if (given(username) && given(password)) {
    if (!USER_ID.test(username.trim())) {
      throw configError("username must look like `user@realm`, e.g. root@pam or ops@pve");
    }
    return { kind: "password", username: username.trim(), password: new Secret(password) };
  }
  if (given(username)) {
    throw configError(
      "password is required with username (config `password` or PROXMOX_VE_PASSWORD)",
    );
  }
  if (given(password)) {
    throw configError(
      "username is required with password (config `username` or PROXMOX_VE_USERNAME), e.g. root@pam",
    );
  }
  throw configError(
    "apiToken is required (config `apiToken`, PROXMOX_VE_API_TOKEN or PROXMOX_VE_API_TOKEN_FILE), " +
      "or username and password for a password login (config `username` and `password`, or " +
      "PROXMOX_VE_USERNAME and PROXMOX_VE_PASSWORD)",
  );
}

/**
 * Parses connection settings. Precedence: the explicit `input` value, then the environment
 * variable {@link CONNECTION_SETTINGS} names; the login is taken whole from one of the two (see
 * `parseLogin`). Throws a `CONFIG` {@link PermanentError} that names the setting and never
 * contains the token or the password.
 */
export function parseConnectionConfig(
  input: ConnectionConfigInput = {},
  sources: ConfigSources = {},
): ConnectionConfig {
  const env = sources.env ?? process.env;
  const readFile = sources.readFile ?? ((path: string) => readFileSync(path, "utf8"));
  const pick = (name: Exclude<ConnectionSetting, (typeof LOGIN_SETTINGS)[number]>) => {
    const value = input[name];
    return value !== undefined && value.trim() !== "" ? value : env[CONNECTION_SETTINGS[name].env];
  };

  const parsed = inputSchema.safeParse({
    endpoint: pick("endpoint"),
    insecure: pick("insecure")?.trim().toLowerCase(),
    caCert: pick("caCert"),
    maxConnections: pick("maxConnections")?.trim() || undefined,
    heavyTasksPerNode: pick("heavyTasksPerNode")?.trim() || undefined,
  });
  if (!parsed.success) {
    // Name the field and zod's complaint; never the received value (it may be a secret).
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
    login: parseLogin(input, env, readFile),
    caCert: caCert ? readPem(caCert, readFile) : undefined,
    insecure: insecure === "true" || insecure === "1",
    maxConnections: parsed.data.maxConnections,
    heavyTasksPerNode: parsed.data.heavyTasksPerNode,
  };
}
