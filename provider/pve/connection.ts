/**
 * The one way to connect to Proxmox: the HTTP client and the tracing, retrying and coalescing
 * layers around it, in one OperationContext. The provider process builds it from the stack
 * config (loaded by glue/runtime.ts on the first call that talks to Proxmox, so calls that do not —
 * check, diff — never load undici); the CLI's sweep, destroy and doctor build it from their
 * flags or the stack's config. Both get the same layers in the same order.
 *
 * @internal
 */
import {
  coalescedApi,
  sharedListingCoalescer,
  sharedNodeListings,
  sharedNodeStorages,
} from "./api/coalesced-api";
import { HttpProxmoxApi } from "./api/http-api";
import type { ProxmoxApi } from "./api/proxmox-api";
import { retryingApi } from "./api/retrying-api";
import { tracedApi } from "./api/traced-api";
import { connectionFromConfig, type ConfigReader, type ConnectionConfig } from "./config";
import { operationContext, type ListingAge, type OperationContext } from "./context";
import { engineSignal } from "../glue/engine-watch";

/** The stack config as the provider host hands it to `configure`. */
export type { ConfigReader } from "./config";

export interface ConnectOptions {
  /** One line per step worth telling the user (a retry, a task still running). */
  readonly progress: (message: string) => void;
  readonly warn: (message: string) => void;
  /** Receives one line per API call (method, node/vmid, duration, outcome); default: none. */
  readonly debug?: ((message: string) => void) | undefined;
  /** Cancels every request (the provider's: the engine went away). */
  readonly signal?: AbortSignal | undefined;
  /** Per-request budget for ordinary calls; default the HTTP client's. */
  readonly timeoutMs?: number | undefined;
  /**
   * Retry transient answers (default true). doctor turns it off: it reports each answer as PVE
   * gave it, and an unreachable endpoint at once rather than after the retry budget.
   */
  readonly retry?: boolean | undefined;
}

/** A connection: the API every caller uses, and the operations' context around it. */
export interface Connected {
  readonly api: ProxmoxApi;
  readonly ctx: OperationContext;
}

/** Builds the API stack for one endpoint: HTTP → traced → retrying → coalesced, and its context. */
export function connect(connection: ConnectionConfig, options: ConnectOptions): Connected {
  const http = new HttpProxmoxApi({
    connection,
    logger: { warn: options.warn },
    signal: options.signal,
    timeoutMs: options.timeoutMs,
  });
  const traced = tracedApi(http, { debug: options.debug ?? (() => undefined) });
  const coalescer = sharedListingCoalescer(connection.origin);
  const retried =
    options.retry === false ? traced : retryingApi(traced, { progress: options.progress });
  // Retried below the coalescer, so callers sharing one listing also share its retries.
  const api = coalescedApi(
    retried,
    coalescer,
    sharedNodeListings(connection.origin),
    sharedNodeStorages(connection.origin),
  );
  const listVms = async (age?: ListingAge) => {
    if (age?.fresh) coalescer.invalidate();
    if (age?.anyAge) return coalescer.get(() => api.clusterVms(), { anyAge: true });
    return api.clusterVms();
  };
  const ctx = operationContext(
    api,
    listVms,
    { progress: options.progress, warn: options.warn },
    { heavyTasksPerNode: connection.heavyTasksPerNode },
    connection.login.kind === "token" ? connection.login.tokenId : connection.login.username,
  );
  return { api, ctx };
}

/** The provider process's context, from the stack config. Also used by integration tests. */
export function buildContext(config: ConfigReader): OperationContext {
  const debug = process.env["PULUMI_PROXMOX_DEBUG"] === "1";
  // The engine shows the dynamic provider's stdout as info lines: the user's progress view.
  return connect(connectionFromConfig(config), {
    progress: (message) => console.log(`pulumi-proxmox: ${message}`),
    warn: (message) => console.warn(`pulumi-proxmox: warning: ${message}`),
    debug: (message) => (debug ? console.error(message) : undefined),
    signal: engineSignal(),
  }).ctx;
}
