import { createHash } from "node:crypto";
import { Pool, type Dispatcher } from "undici";

/**
 * One undici {@link Pool} per endpoint and TLS setting, shared by every resource the provider
 * process serves.
 *
 * Why a process-wide registry: one `pulumi-resource-pulumi-nodejs` process serves all dynamic
 * resources of a deployment, concurrently, and runs each CRUD call through freshly deserialized
 * closures. State held in a closure's module-level `let` is rebuilt per call (measured: three
 * creates built three undici Agents), so a pool kept there is not shared and every resource
 * opens its own TLS connections to pveproxy, which serves few workers. A `const` object in a
 * real `node_modules` module survives; we additionally hang the map on `globalThis` under a
 * registered symbol, so that even two copies of this module (a by-value capture and the
 * package) find the same pools. See dynamic-provider-notes §3.
 */

export interface DispatcherSettings {
  /** `https://host:port` */
  readonly origin: string;
  readonly caCert?: string | undefined;
  readonly insecure: boolean;
  /** Concurrent connections per endpoint (the config's `maxConnections`). */
  readonly connections: number;
}

export interface RegistryLogger {
  warn(message: string): void;
}

const REGISTRY = Symbol.for("pulumi-proxmox.dispatchers");

type Registry = Map<string, Dispatcher>;

function registry(): Registry {
  const holder = globalThis as { [REGISTRY]?: Registry };
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

/** The registry key: the CA is hashed so the key can be logged without printing a PEM. */
function dispatcherKey(settings: DispatcherSettings): string {
  const ca = settings.caCert
    ? createHash("sha256").update(settings.caCert).digest("hex").slice(0, 16)
    : "system";
  return `${settings.origin}|ca=${ca}|insecure=${settings.insecure ? 1 : 0}`;
}

/**
 * The shared pool for these settings, created on first use. Creating an insecure pool logs the
 * warning: that happens once per provider process, i.e. once per `pulumi up`.
 */
export function sharedDispatcher(settings: DispatcherSettings, log?: RegistryLogger): Dispatcher {
  const key = dispatcherKey(settings);
  const pools = registry();
  const existing = pools.get(key);
  if (existing !== undefined) return existing;
  if (settings.insecure) {
    log?.warn(
      `TLS verification is DISABLED for ${settings.origin} (insecure=true): anyone on the path ` +
        `can read the API token. Set caCert to the PVE CA instead.`,
    );
  }
  const pool = new Pool(settings.origin, {
    connections: settings.connections,
    keepAliveTimeout: 4_000,
    connect: {
      rejectUnauthorized: !settings.insecure,
      ...(settings.caCert ? { ca: settings.caCert } : {}),
    },
  });
  pools.set(key, pool);
  return pool;
}

/** How many shared pools exist (tests and the benchmark check that resources share one). */
export function sharedDispatcherCount(): number {
  return registry().size;
}

/** Closes and forgets every shared pool; for tests and clean shutdown. */
export async function closeSharedDispatchers(): Promise<void> {
  const pools = registry();
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((pool) => pool.close()));
}
