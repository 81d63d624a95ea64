import { hasCode } from "../errors.js";
import type { ClusterVm, NodeStorage, NodeVm, ProxmoxApi } from "./proxmox-api.js";
import { isReadRequest } from "./retrying-api.js";

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

export class ListingCoalescer<Row = ClusterVm> {
  readonly #freshnessMs: number;
  readonly #now: () => number;
  #generation = 0;
  #flight: { generation: number; promise: Promise<readonly Row[]> } | undefined;
  #cached: { generation: number; at: number; value: readonly Row[] } | undefined;
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
  async get(
    fetch: () => Promise<readonly Row[]>,
    options: { anyAge?: boolean } = {},
  ): Promise<readonly Row[]> {
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

  #start(fetch: () => Promise<readonly Row[]>): {
    generation: number;
    promise: Promise<readonly Row[]>;
  } {
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

/**
 * One coalescer per node, invalidated together: the per-node VM listings
 * (`GET /nodes/{node}/qemu?full=1`) a refresh reads every VM's status from, which this process's
 * VM writes invalidate, and each node's storages ({@link NodeStorages}), which they do not.
 */
export class NodeListings<Row = NodeVm> {
  readonly #options: CoalescerOptions;
  readonly #byNode = new Map<string, ListingCoalescer<Row>>();

  constructor(options: CoalescerOptions = {}) {
    this.#options = options;
  }

  get(node: string, fetch: () => Promise<readonly Row[]>): Promise<readonly Row[]> {
    let coalescer = this.#byNode.get(node);
    if (coalescer === undefined) {
      coalescer = new ListingCoalescer<Row>(this.#options);
      this.#byNode.set(node, coalescer);
    }
    return coalescer.get(fetch);
  }

  invalidate(): void {
    for (const coalescer of this.#byNode.values()) coalescer.invalidate();
  }
}

/**
 * Each node's storages: what every create's preflight asks, and what no VM operation of this
 * process changes (storage.cfg is the cluster's configuration, not the VMs'). Shared like the
 * listings (single flight, fresh for `freshnessMs`), so N creates that start together ask once
 * per node, not N times; never invalidated by a VM write. A storage disabled inside the window
 * still fails the clone, with PVE's error. The node list is not shared: a node's `online` status
 * is what the preflight checks to say "node … is offline" before anything is written, and it
 * must be live.
 */
export type NodeStorages = NodeListings<NodeStorage>;

/**
 * The process-wide instance for `key` (the endpoint origin): like the connection pool, a
 * listing must be shared by every resource of the provider process, so it lives on `globalThis`.
 */
function shared<T>(registry: symbol, key: string, make: () => T): T {
  const holder = globalThis as unknown as Record<symbol, Map<string, T> | undefined>;
  const instances = (holder[registry] ??= new Map<string, T>());
  let instance = instances.get(key);
  if (instance === undefined) {
    instance = make();
    instances.set(key, instance);
  }
  return instance;
}

export function sharedListingCoalescer(key: string, options?: CoalescerOptions): ListingCoalescer {
  return shared(Symbol.for("pulumi-proxmox.listing-coalescers"), key, () => {
    return new ListingCoalescer(options);
  });
}

export function sharedNodeListings(key: string, options?: CoalescerOptions): NodeListings {
  return shared(Symbol.for("pulumi-proxmox.node-listings"), key, () => new NodeListings(options));
}

export function sharedNodeStorages(key: string, options?: CoalescerOptions): NodeStorages {
  return shared(
    Symbol.for("pulumi-proxmox.node-storages"),
    key,
    () => new NodeListings<NodeStorage>(options),
  );
}

/**
 * `inner` with `clusterVms()` served through `coalescer`, `nodeVms()` through `nodes`,
 * `nodeStorages()` through `storages`, and the invalidations wired. Any request that is not a read (a start, a clone, a task poll that may see
 * a task end) invalidates the node listings, so a status this process changed is never served
 * from before the change.
 */
export function coalescedApi(
  inner: ProxmoxApi,
  coalescer: ListingCoalescer,
  nodes: NodeListings = new NodeListings(),
  storages: NodeStorages = new NodeListings<NodeStorage>(),
): ProxmoxApi {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "nodeStorages") {
        return (node: string) => storages.get(node, () => target.nodeStorages(node));
      }
      if (property === "clusterVms") return () => coalescer.get(() => target.clusterVms());
      if (property === "invalidateClusterVms") return () => coalescer.invalidate();
      if (property === "nodeVms") {
        return (node: string) => nodes.get(node, () => target.nodeVms(node));
      }
      if (property === "invalidateNodeVms") return () => nodes.invalidate();
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (typeof property === "string" && !isReadRequest(property)) {
        return (...args: unknown[]) => {
          nodes.invalidate();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
}
