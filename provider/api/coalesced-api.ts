import { hasCode } from "../errors.js";
import type { ClusterVm, ProxmoxApi } from "./proxmox-api.js";

/**
 * Listing coalescing: a refresh of N VMs would otherwise cost N `GET /cluster/resources`
 * (the most used Terraform provider lists the whole cluster once per VM). Concurrent callers
 * share one request (single flight) and a result stays fresh for `freshnessMs`; PVE's own
 * listing lags ~10 s (pvestatd), so a short window adds little staleness. `invalidate()` makes
 * the next caller start a new request, never joining one that began before the invalidation,
 * so a create sees its own writes.
 */

export interface CoalescerOptions {
  /** How long a finished listing is served to new callers. */
  readonly freshnessMs?: number | undefined;
  readonly now?: (() => number) | undefined;
}

type Listing = readonly ClusterVm[];

export class ListingCoalescer {
  readonly #freshnessMs: number;
  readonly #now: () => number;
  #generation = 0;
  #flight: { generation: number; promise: Promise<Listing> } | undefined;
  #cached: { generation: number; at: number; value: Listing } | undefined;
  /** Requests actually sent. */
  requests = 0;

  constructor(options: CoalescerOptions = {}) {
    this.#freshnessMs = options.freshnessMs ?? 2_000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The listing, from cache, from a request in flight, or from `fetch`. `anyAge` takes a cached
   * listing however old it is (a caller that checks what it finds there live).
   */
  async get(fetch: () => Promise<Listing>, options: { anyAge?: boolean } = {}): Promise<Listing> {
    for (let attempt = 0; ; attempt++) {
      const cached = this.#cached;
      const fresh = cached !== undefined && this.#now() - cached.at < this.#freshnessMs;
      if (cached?.generation === this.#generation && (fresh || options.anyAge === true)) {
        return cached.value;
      }
      const joined = this.#flight?.generation === this.#generation;
      const flight = joined && this.#flight ? this.#flight : this.#start(fetch);
      try {
        return await flight.promise;
      } catch (error) {
        // A flight started by a caller that cancelled is not this caller's failure: retry once
        // with our own fetch.
        if (joined && attempt === 0 && hasCode(error, "ABORTED")) continue;
        throw error;
      }
    }
  }

  /** Forget the cached listing and any listing in flight, for the next caller. */
  invalidate(): void {
    this.#generation++;
    this.#cached = undefined;
  }

  #start(fetch: () => Promise<Listing>): { generation: number; promise: Promise<Listing> } {
    const generation = this.#generation;
    this.requests++;
    const promise = fetch().then((value) => {
      if (generation === this.#generation) {
        this.#cached = { generation, at: this.#now(), value };
      }
      return value;
    });
    const flight = { generation, promise };
    this.#flight = flight;
    const clear = () => {
      if (this.#flight === flight) this.#flight = undefined;
    };
    promise.then(clear, clear);
    return flight;
  }
}

const REGISTRY = Symbol.for("pulumi-proxmox.listing-coalescers");

/**
 * The process-wide coalescer for `key` (the endpoint origin): like the connection pool it must
 * be shared by every resource of the provider process, so it lives on `globalThis`.
 */
export function sharedListingCoalescer(key: string, options?: CoalescerOptions): ListingCoalescer {
  const holder = globalThis as { [REGISTRY]?: Map<string, ListingCoalescer> };
  holder[REGISTRY] ??= new Map();
  let coalescer = holder[REGISTRY].get(key);
  if (coalescer === undefined) {
    coalescer = new ListingCoalescer(options);
    holder[REGISTRY].set(key, coalescer);
  }
  return coalescer;
}

/** `inner` with `clusterVms()` served through `coalescer` and `invalidateClusterVms()` wired. */
export function coalescedApi(inner: ProxmoxApi, coalescer: ListingCoalescer): ProxmoxApi {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "clusterVms") return () => coalescer.get(() => target.clusterVms());
      if (property === "invalidateClusterVms") return () => coalescer.invalidate();
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
