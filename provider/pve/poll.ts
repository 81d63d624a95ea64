/**
 * The one poll loop of the provider: task waits, HA power-state waits, the guest-agent wait and
 * the waits for a clone or a template's create in progress all ask PVE the same question again
 * and again until it says yes or the budget is spent. A wait that runs out of budget is
 * transient (the thing waited for may still happen), so its error is a TransientError. They differ only in what they ask, how fast the interval grows,
 * and what they say while waiting and when giving up; the loop (budget, quiet start, interval,
 * progress cadence, abort) is written once here.
 */
import type { Clock } from "./retry";

export interface PollOptions<T> {
  readonly clock: Pick<Clock, "now" | "sleep">;
  readonly signal?: AbortSignal | undefined;
  /** Waiting longer than this ends the loop with `timedOut`. */
  readonly budgetMs: number;
  /** No attempt before this much time has passed. */
  readonly quietMs?: number | undefined;
  /** The wait after the first attempt. */
  readonly firstIntervalMs: number;
  /** The wait after the next attempt, from the last wait and the time waited so far. */
  readonly nextIntervalMs: (previousMs: number, elapsedMs: number) => number;
  /** One attempt: the result when done, undefined to poll again. */
  attempt(elapsedMs: number): Promise<T | undefined>;
  /** The error to throw once the budget is spent. */
  timedOut(elapsedMs: number): Error;
  /** The error to throw when `signal` aborts a wait. */
  aborted?(): Error;
  /** Called before the first wait and then at most every `progressEveryMs`. */
  readonly progress?: ((elapsedMs: number) => void) | undefined;
  readonly progressEveryMs?: number | undefined;
}

/**
 * The wait for a VM that a clone or create task of another run holds locked (its config and
 * mark settle when the task ends): read every second, with a line every 10 s. A task this run
 * started is waited on through its own status instead.
 */
export const LOCK_POLL = { intervalMs: 1_000, progressEveryMs: 10_000 } as const;

/** Grows the interval ×1.5 per attempt up to `maxMs`: the schedule of most waits. */
export function growing(maxMs: number): (previousMs: number) => number {
  return (previousMs) => Math.min(maxMs, previousMs * 1.5);
}

/**
 * The interval is `ratio` of the time waited so far, within `minMs` and `maxMs`: an answer that
 * comes at time t is seen at most `ratio` × t late (half that on average), where growing ×1.5
 * per attempt lets the interval reach half the time waited.
 */
export function proportional(
  ratio: number,
  minMs: number,
  maxMs: number,
): (previousMs: number, elapsedMs: number) => number {
  return (_previousMs, elapsedMs) => Math.min(maxMs, Math.max(minMs, elapsedMs * ratio));
}

export async function pollUntil<T>(options: PollOptions<T>): Promise<T> {
  const { clock } = options;
  const started = clock.now();
  const sleep = async (ms: number): Promise<void> => {
    if (options.signal?.aborted) throw options.aborted?.() ?? options.signal.reason;
    try {
      await clock.sleep(ms, options.signal);
    } catch (error) {
      throw options.aborted?.() ?? error;
    }
  };
  if ((options.quietMs ?? 0) > 0) await sleep(Math.min(options.quietMs ?? 0, options.budgetMs));
  let interval: number | undefined;
  let reportedAt: number | undefined;
  for (;;) {
    if (options.signal?.aborted) throw options.aborted?.() ?? options.signal.reason;
    const done = await options.attempt(clock.now() - started);
    if (done !== undefined) return done;
    const elapsed = clock.now() - started;
    if (elapsed >= options.budgetMs) throw options.timedOut(elapsed);
    const every = options.progressEveryMs ?? Infinity;
    if (options.progress && (reportedAt === undefined || elapsed - reportedAt >= every)) {
      reportedAt = elapsed;
      options.progress(elapsed);
    }
    interval =
      interval === undefined ? options.firstIntervalMs : options.nextIntervalMs(interval, elapsed);
    await sleep(Math.max(1, Math.min(interval, options.budgetMs - elapsed)));
  }
}
