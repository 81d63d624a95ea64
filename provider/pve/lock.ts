import { PermanentError } from "./errors.js";

/**
 * In-process mutual exclusion by key (docs/design.md, "In-process locks by key"): `"vm:<vmid>"`
 * for work on one VM. FIFO per key, each wait abortable, and a key's map
 * entry is deleted when its queue empties, so a long deployment does not leak one entry per VM.
 * It covers one provider process only; other processes are covered by PVE's own locks.
 */

interface Waiter {
  readonly grant: () => void;
}

export class KeyedLock {
  /** Per key: the holder first, then the waiters in arrival order. */
  readonly #queues = new Map<string, Waiter[]>();

  /** Keys currently held or waited for. */
  get size(): number {
    return this.#queues.size;
  }

  isLocked(key: string): boolean {
    return this.#queues.has(key);
  }

  /** Waiters queued behind the holder of `key`. */
  waiting(key: string): number {
    return Math.max(0, (this.#queues.get(key)?.length ?? 0) - 1);
  }

  /**
   * Resolves with a release function once `key` is ours. Rejects with an `ABORTED`
   * {@link PermanentError} (and leaves the queue) when `signal` aborts first.
   */
  acquire(key: string, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(aborted(key, signal));
    return new Promise((resolve, reject) => {
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.#release(key, waiter);
      };
      const onAbort = () => {
        const queue = this.#queues.get(key);
        const index = queue?.indexOf(waiter) ?? -1;
        // Index 0 is the holder: once granted, an abort no longer applies.
        if (queue === undefined || index <= 0) return;
        queue.splice(index, 1);
        reject(aborted(key, signal));
      };
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(release);
        },
      };
      const queue = this.#queues.get(key);
      if (queue === undefined) {
        this.#queues.set(key, [waiter]);
        waiter.grant();
        return;
      }
      queue.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Runs `fn` while holding `key`; releases it however `fn` ends. */
  async withLock<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(key, signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  #release(key: string, waiter: Waiter): void {
    const queue = this.#queues.get(key);
    if (queue?.[0] !== waiter) return;
    queue.shift();
    const next = queue[0];
    if (next === undefined) this.#queues.delete(key);
    else next.grant();
  }
}

function aborted(key: string, signal?: AbortSignal): PermanentError {
  return new PermanentError(
    "ABORTED",
    `Waiting for the in-process lock "${key}" was cancelled.`,
    {},
    { cause: signal?.reason },
  );
}
