/**
 * The API worker limit of a PVE node: pveproxy and pvedaemon each run a fixed number of worker
 * processes (3 by default) and a worker runs one API handler at a time, so a node answers at
 * most that many requests at once and the rest wait their turn. The simulator keeps one such
 * pool per node, so a client that floods a node with requests sees the queueing a real one does.
 */
export class ApiWorkers {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) {
      throw new Error(`apiWorkers must be a whole number of at least 1, got ${size}`);
    }
  }

  /** Requests waiting for a free worker (not counting the ones being served). */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `work` on a free worker, waiting in line (first come, first served) for one. */
  async run<T>(work: () => Promise<T> | T): Promise<T> {
    if (this.busy >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.busy += 1;
    try {
      return await work();
    } finally {
      // The worker passes straight to the next in line, so `busy` stays counted for it.
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.busy -= 1;
    }
  }
}

/** One {@link ApiWorkers} per node, made on first use. */
export class NodeWorkers {
  private readonly pools = new Map<string, ApiWorkers>();

  constructor(private readonly size: number) {
    new ApiWorkers(size);
  }

  of(node: string): ApiWorkers {
    let pool = this.pools.get(node);
    if (pool === undefined) {
      pool = new ApiWorkers(this.size);
      this.pools.set(node, pool);
    }
    return pool;
  }
}

/**
 * A duration drawn uniformly from `base × (1 ± jitter)`, so a client cannot be tuned to a
 * constant; `jitter` 0 gives `base` itself.
 */
export function jittered(base: number, jitter: number, random: () => number = Math.random): number {
  if (jitter <= 0 || base <= 0) return base;
  return Math.max(0, base * (1 + jitter * (2 * random() - 1)));
}
