/**
 * A bound on the heavy tasks (clones, migrations) this provider process runs at once on one
 * node: they copy disks and contend for the node's storage. Slots are counted per node, never
 * process-wide, so a busy node does not hold back another; waiters are served in arrival order.
 * Without a limit every task runs at once, as PVE itself allows.
 */
export class NodeSlots {
  readonly #limit: number | undefined;
  readonly #busy = new Map<string, number>();
  readonly #queues = new Map<string, (() => void)[]>();

  constructor(limit: number | undefined) {
    this.#limit = limit;
  }

  /** Tasks running on `node` under a slot (for tests). */
  busy(node: string): number {
    return this.#busy.get(node) ?? 0;
  }

  /** The bound per node; undefined: none. */
  get limit(): number | undefined {
    return this.#limit;
  }

  /**
   * Runs `fn` once a slot on `node` is free, and frees it when `fn` settles. `queued` is called
   * only when every slot is taken, as the wait begins; the function it returns, when it ends.
   */
  async run<T>(node: string, fn: () => Promise<T>, queued?: () => () => void): Promise<T> {
    if (this.#limit === undefined) return fn();
    await this.#acquire(node, this.#limit, queued);
    try {
      return await fn();
    } finally {
      this.#release(node);
    }
  }

  async #acquire(node: string, limit: number, queued?: () => () => void): Promise<void> {
    if (this.busy(node) < limit && (this.#queues.get(node)?.length ?? 0) === 0) {
      this.#busy.set(node, this.busy(node) + 1);
      return;
    }
    const granted = queued?.();
    // The releasing task hands its slot over: the count stays as it is.
    await new Promise<void>((grant) => {
      const queue = this.#queues.get(node) ?? [];
      queue.push(grant);
      this.#queues.set(node, queue);
    });
    granted?.();
  }

  #release(node: string): void {
    const queue = this.#queues.get(node);
    const next = queue?.shift();
    if (queue?.length === 0) this.#queues.delete(node);
    if (next !== undefined) return next();
    const busy = this.busy(node) - 1;
    if (busy > 0) this.#busy.set(node, busy);
    else this.#busy.delete(node);
  }
}
