import type { NodeSeed, StorageSeed, TemplateSeed, TokenSeed, UserSeed } from "./model/types.js";
import { TICKET_LIFETIME_MS } from "./auth/tickets.js";
import {
  DEFAULT_BRIDGES,
  DEFAULT_NODES,
  DEFAULT_STORAGES,
  DEFAULT_TEMPLATES,
} from "./model/defaults.js";
import { versionProfile, type PveVersion, type VersionProfile } from "./model/versions.js";

/** Task types whose duration can be set (PVE's worker type names). */
export type TaskType =
  | "qmclone"
  | "qmstart"
  | "qmstop"
  | "qmshutdown"
  | "qmreboot"
  | "qmdestroy"
  | "qmconfig"
  | "qmigrate"
  | "qmmove"
  | "resize"
  | "imgcopy"
  | "imgdel"
  | "download"
  | "qmcreate"
  | "qmtemplate"
  | "qmsnapshot"
  | "qmrollback"
  | "qmdelsnapshot";

/**
 * Task durations that feel like a small real host: what `pve-sim` uses unless `--task-ms`
 * overrides them all, and what the scale benchmark draws its jittered durations around.
 */
export const REALISTIC_TASK_MS: Readonly<Partial<Record<TaskType, number>>> = {
  qmclone: 3000,
  qmstart: 1500,
  qmstop: 1000,
  qmshutdown: 2000,
  qmreboot: 2000,
  qmdestroy: 1000,
  qmconfig: 300,
  qmigrate: 3000,
  resize: 500,
  imgcopy: 500,
  imgdel: 300,
  qmsnapshot: 1000,
  qmrollback: 1500,
  qmdelsnapshot: 800,
};

export interface SimulatorOptions {
  /** Listen address; default `127.0.0.1`. Anything but loopback needs `allowNonLoopback`. */
  readonly host?: string;
  readonly allowNonLoopback?: boolean;
  /** Default 0: an ephemeral port. */
  readonly port?: number;
  /** Default true: HTTPS with a CA and server certificate generated at start. */
  readonly tls?: boolean;
  /** Where to write the CA certificate (PEM). */
  readonly caFile?: string;
  /** JSON state file: loaded at start, written on change (debounced) and on close. */
  readonly stateFile?: string;
  readonly nodes?: readonly NodeSeed[];
  readonly storages?: readonly StorageSeed[];
  readonly templates?: readonly TemplateSeed[];
  /** Extra tokens; the default full-privilege `root@pam!ci` token always exists. */
  readonly tokens?: readonly TokenSeed[];
  /** Users who log in with a password; `root@pam` (all privileges) always exists. */
  readonly users?: readonly UserSeed[];
  /** How long a login ticket and its CSRF token are valid; default PVE's 2 hours. */
  readonly ticketLifetimeMs?: number;
  /** Bridge → DHCP pool CIDR for the simulated guests; default `{ vmbr0: "10.10.0.0/24" }`. */
  readonly bridges?: Readonly<Record<string, string>>;
  /** Per task type duration; default `defaultTaskMs` for every type. */
  readonly taskDurationsMs?: Partial<Record<TaskType | (string & {}), number>>;
  /** Default 50 ms (tests); the CLI uses longer, more realistic values. */
  readonly defaultTaskMs?: number;
  /** How far `/cluster/resources` lags real state (pvestatd). Default 0; the CLI uses 1000. */
  readonly listingLagMs?: number;
  /**
   * MiB/s per storage id, shared by the copies running on it (full clones, disk moves); a
   * storage not listed copies in its task's fixed duration (the default: no storage listed).
   */
  readonly storageBandwidthMiBps?: Readonly<Record<string, number>>;
  /** How long one volume allocation holds its storage's lock (default 0). */
  readonly storageAllocMs?: number;
  /** Delay from the end of a start task to the guest agent answering. Default 100 ms. */
  readonly guestBootMs?: number;
  /** How long the HA CRM takes to act on a requested state (real PVE: ~10 s). Default 200 ms. */
  readonly haCrmDelayMs?: number;
  /**
   * Which HA placement API the cluster has: `groups` (`/cluster/ha/groups`, PVE 7 and 8) or
   * `rules` (`/cluster/ha/rules`, PVE 9); default: as the release does. The other answers 501,
   * as an unknown route does.
   */
  readonly haPlacement?: HaPlacementApi;
  /** PVE delays every 401 by ~3 s; default here 100 ms so tests stay fast; the CLI uses 3000. */
  readonly authFailureDelayMs?: number;
  /**
   * The PVE release to answer as (default `$PVE_SIM_VERSION`, else 8.4): version strings, error
   * bodies, privileges, resize, status fields (docs/simulator.md, "Version profiles").
   */
  readonly pveVersion?: PveVersion;
  /** Add `message` to error bodies like pve-http-server >= 5.2.0 (default: as the release does). */
  readonly errorMessageInBody?: boolean;
  /** Extra interfaces the simulated guests list, to test address selection (default: none). */
  readonly guest?: GuestOptions;
  /** ISO bytes kept per uploaded file so guests can read seeds; larger uploads keep only size. */
  readonly maxRetainedFileBytes?: number;
  /**
   * Let `download-url` fetch from non-loopback addresses. Default false: the simulator backs
   * tests, so a URL that would reach the network fails the download task instead.
   */
  readonly allowRemoteDownloads?: boolean;
  /**
   * API requests each node serves at once, like pvedaemon's and pveproxy's 3 workers; the rest
   * queue. Default 3.
   */
  readonly apiWorkers?: number;
  /** Time each API request holds its node's worker before its handler runs. Default 0. */
  readonly requestLatencyMs?: number;
  /**
   * Task durations and the guest boot are drawn from `duration × (1 ± taskJitter)`. Default 0
   * (exact durations, for tests); the CLI uses 0.3.
   */
  readonly taskJitter?: number;
}

/** What a guest's agent lists besides `lo` and its NICs (each NIC always has an fe80:: address). */
export type HaPlacementApi = VersionProfile["haPlacement"];

/**
 * Where the guest agent comes from: baked into the image (`preinstalled`, the default), installed
 * by cloud-init's package step when the seed's user-data lists `qemu-guest-agent` under
 * `packages` (`user-data`; stock cloud images ship without it), or never (`never`).
 */
export type GuestAgentSource = "preinstalled" | "user-data" | "never";

/** How the simulated guests behave: their agent and what it lists besides their NICs. */
export interface GuestOptions extends GuestNetworkOptions {
  readonly agent?: GuestAgentSource;
  /** Extra time from boot to the agent answering: a slow guest or cloud-init's package step. */
  readonly agentDelayMs?: number;
}

export interface GuestNetworkOptions {
  /** A `docker0` bridge (172.17.0.1/16, its own MAC), listed before eth0. */
  readonly dockerBridge?: boolean;
  /** An APIPA 169.254/16 address on eth0, listed before its DHCP lease. */
  readonly apipa?: boolean;
}

export interface ResolvedOptions {
  readonly host: string;
  readonly port: number;
  readonly tls: boolean;
  readonly caFile: string | undefined;
  readonly stateFile: string | undefined;
  readonly nodes: readonly NodeSeed[];
  readonly storages: readonly StorageSeed[];
  readonly templates: readonly TemplateSeed[];
  readonly tokens: readonly TokenSeed[];
  readonly users: readonly UserSeed[];
  readonly ticketLifetimeMs: number;
  readonly bridges: Readonly<Record<string, string>>;
  readonly taskDurationsMs: Partial<Record<string, number>>;
  readonly defaultTaskMs: number;
  listingLagMs: number;
  readonly guestBootMs: number;
  readonly haCrmDelayMs: number;
  readonly haPlacement: HaPlacementApi;
  readonly authFailureDelayMs: number;
  readonly profile: VersionProfile;
  readonly errorMessageInBody: boolean;
  readonly maxRetainedFileBytes: number;
  readonly allowRemoteDownloads: boolean;
  readonly guest: Required<GuestOptions>;
  readonly apiWorkers: number;
  readonly requestLatencyMs: number;
  readonly taskJitter: number;
  readonly storageBandwidthMiBps: Readonly<Record<string, number>>;
  readonly storageAllocMs: number;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export function resolveOptions(options: SimulatorOptions = {}): ResolvedOptions {
  const host = options.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host) && options.allowNonLoopback !== true) {
    throw new Error(`refusing to listen on non-loopback host '${host}' without allowNonLoopback`);
  }
  const profile = versionProfile(options.pveVersion);
  return {
    host,
    port: options.port ?? 0,
    tls: options.tls ?? true,
    caFile: options.caFile,
    stateFile: options.stateFile,
    nodes: options.nodes ?? DEFAULT_NODES,
    storages: options.storages ?? DEFAULT_STORAGES,
    templates: options.templates ?? DEFAULT_TEMPLATES,
    tokens: options.tokens ?? [],
    users: options.users ?? [],
    ticketLifetimeMs: options.ticketLifetimeMs ?? TICKET_LIFETIME_MS,
    bridges: options.bridges ?? DEFAULT_BRIDGES,
    taskDurationsMs: options.taskDurationsMs ?? {},
    defaultTaskMs: options.defaultTaskMs ?? 50,
    listingLagMs: options.listingLagMs ?? 0,
    storageBandwidthMiBps: options.storageBandwidthMiBps ?? {},
    storageAllocMs: options.storageAllocMs ?? 0,
    guestBootMs: options.guestBootMs ?? 100,
    haCrmDelayMs: options.haCrmDelayMs ?? 200,
    haPlacement: options.haPlacement ?? profile.haPlacement,
    authFailureDelayMs: options.authFailureDelayMs ?? 100,
    profile,
    errorMessageInBody: options.errorMessageInBody ?? profile.errorMessageInBody,
    maxRetainedFileBytes: options.maxRetainedFileBytes ?? 16 * 1024 * 1024,
    allowRemoteDownloads: options.allowRemoteDownloads ?? false,
    guest: {
      dockerBridge: options.guest?.dockerBridge ?? false,
      apipa: options.guest?.apipa ?? false,
      agent: options.guest?.agent ?? "preinstalled",
      agentDelayMs: options.guest?.agentDelayMs ?? 0,
    },
    apiWorkers: options.apiWorkers ?? 3,
    requestLatencyMs: options.requestLatencyMs ?? 0,
    taskJitter: options.taskJitter ?? 0,
  };
}
