/**
 * Every connection setting, with the variable it falls back to (the names bpg's Terraform
 * provider uses). The stack config key is `proxmox:<name>`; `Provider` takes the same names.
 * `secret` settings are stored as secrets by `Provider` (and should be set with `--secret`).
 * Apart from config.ts, which parses them, so that a program declaring a `Provider` loads this
 * table and not the parser's dependencies.
 */
export const CONNECTION_SETTINGS = {
  endpoint: { env: "PROXMOX_VE_ENDPOINT", secret: false },
  /** `user@realm!tokenname=secret` (PVE's own format, optionally prefixed `PVEAPIToken=`). */
  apiToken: { env: "PROXMOX_VE_API_TOKEN", secret: true },
  /** Path of a file holding the token, for secrets mounted as files. */
  apiTokenFile: { env: "PROXMOX_VE_API_TOKEN_FILE", secret: false },
  /** `user@realm`, for a password login. */
  username: { env: "PROXMOX_VE_USERNAME", secret: false },
  password: { env: "PROXMOX_VE_PASSWORD", secret: true },
  /** PEM text, or the path of a PEM file. */
  caCert: { env: "PROXMOX_VE_CA_CERT", secret: false },
  insecure: { env: "PROXMOX_VE_INSECURE", secret: false },
  /** A whole number from 1 to 64. */
  maxConnections: { env: "PROXMOX_VE_MAX_CONNECTIONS", secret: false },
  /** A whole number from 1 to 64; unset: no bound. */
  heavyTasksPerNode: { env: "PROXMOX_VE_HEAVY_TASKS_PER_NODE", secret: false },
} as const;

export type ConnectionSetting = keyof typeof CONNECTION_SETTINGS;
