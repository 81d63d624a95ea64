import { PermanentError } from "./errors.js";

/**
 * The clock and back-off shared by every wait and retry: the retrying decorator
 * (pve/api/retrying-api.ts) and the task wait (pve/tasks/task-wait.ts). Every sleep honours an AbortSignal, and
 * the clock is injectable so tests use fake time.
 */

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

export interface BackoffOptions {
  /** First back-off delay; doubled per attempt up to `maxDelayMs`. */
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** In [0, 1): the jitter source. Injected by tests for exact delays. */
  readonly random?: (() => number) | undefined;
}

/** An ABORTED error for a cancelled wait: permanent, since the caller asked to stop. */
export function abortedError(what: string, signal?: AbortSignal): PermanentError {
  return new PermanentError("ABORTED", `${what} was cancelled.`, {}, { cause: signal?.reason });
}

/**
 * The delay before retry number `attempt` (1-based): exponential with "equal jitter", so two
 * processes that hit the same lock do not retry in lockstep.
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const base = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** (attempt - 1));
  const random = options.random ?? Math.random;
  return Math.round(base / 2 + (base / 2) * random());
}
