import { isTransient, PermanentError, TransientError, type ProxmoxError } from "./errors.js";

/**
 * Retries live here and nowhere else (STYLE.md §4.10), in three shapes borrowed from bpg's
 * provider:
 * - {@link runTask}: dispatch a PVE task and wait for it. The dispatch may be retried; the wait
 *   never causes a second dispatch (a failed wait says nothing about whether the task ran, and a
 *   second clone would be a duplicate VM).
 * - {@link runCall}: a plain call, retried only when the error is transient.
 * - {@link poll}: call until a condition holds or a deadline passes.
 * Every sleep honours an AbortSignal, and the clock is injectable so tests use fake time.
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

export interface RetryOptions {
  /** Total time the call may take, retries included. */
  readonly budgetMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly clock?: Clock | undefined;
  /** First back-off delay; doubled per attempt up to `maxDelayMs`. */
  readonly initialDelayMs?: number | undefined;
  readonly maxDelayMs?: number | undefined;
  /** Attempts in all, the first included. */
  readonly maxAttempts?: number | undefined;
  /** In [0, 1): the jitter source. Injected by tests for exact delays. */
  readonly random?: (() => number) | undefined;
  /** Told before each retry sleep, e.g. to log "VM locked, retrying in 2 s". */
  readonly onRetry?: ((error: ProxmoxError, attempt: number, delayMs: number) => void) | undefined;
}

const DEFAULTS = { initialDelayMs: 500, maxDelayMs: 5_000, maxAttempts: 10 };

/** An ABORTED error for a cancelled wait: permanent, since the caller asked to stop. */
export function abortedError(what: string, signal?: AbortSignal): PermanentError {
  return new PermanentError("ABORTED", `${what} was cancelled.`, {}, { cause: signal?.reason });
}

function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw abortedError(what, signal);
}

async function sleep(clock: Clock, ms: number, signal: AbortSignal | undefined, what: string) {
  try {
    await clock.sleep(ms, signal);
  } catch {
    throw abortedError(what, signal);
  }
}

/**
 * The delay before retry number `attempt` (1-based): exponential with "equal jitter", so two
 * processes that hit the same lock do not retry in lockstep.
 */
export function backoffDelay(attempt: number, options: RetryOptions): number {
  const initial = options.initialDelayMs ?? DEFAULTS.initialDelayMs;
  const max = options.maxDelayMs ?? DEFAULTS.maxDelayMs;
  const base = Math.min(max, initial * 2 ** (attempt - 1));
  const random = options.random ?? Math.random;
  return Math.round(base / 2 + (base / 2) * random());
}

/**
 * Calls `fn` until it succeeds, throws a permanent error, or the budget or attempts run out
 * (then the last transient error is thrown). Non-Proxmox errors are bugs and are not retried.
 */
export async function runCall<T>(
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const clock = options.clock ?? systemClock;
  const deadline = clock.now() + options.budgetMs;
  const maxAttempts = options.maxAttempts ?? DEFAULTS.maxAttempts;
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(options.signal, "The call");
    try {
      return await fn(attempt);
    } catch (error) {
      if (!isTransient(error)) throw error;
      const delay = backoffDelay(attempt, options);
      if (attempt >= maxAttempts || clock.now() + delay > deadline) throw error;
      options.onRetry?.(error, attempt, delay);
      await sleep(clock, delay, options.signal, "The retry wait");
    }
  }
}

export interface RunTaskOptions<R> extends RetryOptions {
  /**
   * Asked before a dispatch is retried (never before the first one): did the previous attempt
   * take effect after all (e.g. it timed out after PVE accepted it)? A value means "done, this
   * is the result"; `undefined` means dispatch again.
   */
  readonly alreadyDone?: (() => Promise<R | undefined>) | undefined;
}

/**
 * Dispatches a task and waits for it. Transient dispatch failures are retried under the
 * budget, checking `alreadyDone` first; once `dispatch` returned a handle, `wait`'s outcome is
 * final (its failure is thrown as is: never a second dispatch).
 */
export async function runTask<H, R>(
  dispatch: () => Promise<H>,
  wait: (handle: H) => Promise<R>,
  options: RunTaskOptions<R>,
): Promise<R> {
  let done: { value: R } | undefined;
  const handle = await runCall(async (attempt) => {
    if (attempt > 1 && options.alreadyDone) {
      const value = await options.alreadyDone();
      if (value !== undefined) {
        done = { value };
        return undefined;
      }
    }
    return { handle: await dispatch() };
  }, options);
  if (done !== undefined) return done.value;
  if (handle === undefined) throw new Error("runTask: dispatch produced no handle");
  return wait(handle.handle);
}

export interface PollOptions {
  /** Absolute deadline on `clock` (ms). Either this or `budgetMs`. */
  readonly deadline?: number | undefined;
  readonly budgetMs?: number | undefined;
  readonly intervalMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly clock?: Clock | undefined;
  /** Named in the TIMEOUT error, e.g. "VM 100 to appear in the cluster listing". */
  readonly what?: string | undefined;
}

/**
 * Calls `fn` every `intervalMs` until `until(value)` holds, and returns that value. Transient
 * errors count as "not yet"; permanent ones are thrown. Past the deadline: a TIMEOUT
 * {@link TransientError} whose cause is the last transient error, if any.
 */
export async function poll<T>(
  fn: () => Promise<T>,
  until: (value: T) => boolean,
  options: PollOptions,
): Promise<T> {
  const clock = options.clock ?? systemClock;
  const start = clock.now();
  const deadline = options.deadline ?? start + (options.budgetMs ?? 60_000);
  const interval = options.intervalMs ?? 1_000;
  const what = options.what ?? "the condition";
  let lastError: unknown;
  for (;;) {
    throwIfAborted(options.signal, `Waiting for ${what}`);
    try {
      const value = await fn();
      if (until(value)) return value;
    } catch (error) {
      if (!isTransient(error)) throw error;
      lastError = error;
    }
    const remaining = deadline - clock.now();
    if (remaining <= 0) {
      const seconds = Math.round((clock.now() - start) / 1000);
      throw new TransientError(
        "TIMEOUT",
        `Gave up waiting for ${what} after ${seconds} s.`,
        {},
        lastError === undefined ? undefined : { cause: lastError },
      );
    }
    await sleep(clock, Math.min(interval, remaining), options.signal, `Waiting for ${what}`);
  }
}
