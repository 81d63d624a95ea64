import { isTransient, TransientError } from "../errors.js";
import { pollUntil } from "../poll.js";
import { abortedError, systemClock, type Clock } from "../retry.js";
import { classifyTaskFailure } from "../classify.js";
import { vmidOfUpid } from "../upid.js";
import type { NodeTaskPoller } from "./node-task-poller.js";
import type { ProxmoxApi, TaskStatus, Upid } from "../api/proxmox-api.js";

/**
 * Waits for a PVE worker task with adaptive polling: the interval starts small and grows with
 * the time already waited (never above `ratio` of it), so a task is seen done within about
 * `ratio` of its duration while a 20-minute clone costs a few hundred polls, not thousands.
 * `OK` and `WARNINGS: n` are success: PVE's worker exit status for a task that finished with
 * logged warnings is still a success.
 */

export interface TaskWaitOptions {
  readonly signal?: AbortSignal | undefined;
  /** How long to wait in all before giving up with TIMEOUT. */
  readonly budgetMs: number;
  readonly onProgress?: ((status: TaskStatus, elapsedMs: number) => void) | undefined;
  /** Receives one line per warning of a task that ended `WARNINGS: n`. */
  readonly logger?: { warn(message: string): void } | undefined;
  readonly clock?: Clock | undefined;
  /** First poll interval (default {@link TASK_POLL}'s). */
  readonly initialIntervalMs?: number | undefined;
  /** Upper bound of the interval (default {@link TASK_POLL}'s). */
  readonly maxIntervalMs?: number | undefined;
  /** No poll before this much time has passed (no task of the type has ended sooner). */
  readonly quietMs?: number | undefined;
  /** Interval as a share of the elapsed time: the worst-case overshoot ratio (default {@link TASK_POLL}'s). */
  readonly ratio?: number | undefined;
  /** Lines of the log kept on a failure (default {@link TASK_POLL}'s). */
  readonly tailLines?: number | undefined;
  /**
   * The node's shared task list: polls read the task's row from it, and ask the task's own
   * status only when the list cannot tell.
   */
  readonly poller?: NodeTaskPoller | undefined;
}

export interface TaskResult {
  readonly upid: Upid;
  /** `OK` or `WARNINGS: n`. */
  readonly exitstatus: string;
  /** The task log's `WARN:` lines (empty unless the task ended `WARNINGS: n`). */
  readonly warnings: readonly string[];
  /** Polls made, the last one included (for tests and the benchmark). */
  readonly polls: number;
  /**
   * When the task ended, from the start of the wait, as near as the polls tell: midway between
   * the last poll that saw it running and the first that saw it stopped; that first one's time
   * when no poll saw it running (it ended during the quiet time, or before the first poll).
   */
  readonly endedAfterMs: number;
}

/**
 * How every task wait polls: a 2 s task is seen done within `ratio` (10 %) of its duration, for
 * about 30 polls; a 20-minute one costs a few hundred. docs/architecture.md quotes it.
 */
export const TASK_POLL = {
  initialIntervalMs: 100,
  maxIntervalMs: 5_000,
  ratio: 0.1,
  tailLines: 20,
} as const;

/** The next poll interval: grows ×1.5 per poll but never beyond `ratio` × elapsed or the cap. */
export function nextPollInterval(
  previousMs: number,
  elapsedMs: number,
  options: Pick<TaskWaitOptions, "initialIntervalMs" | "maxIntervalMs" | "ratio"> = {},
): number {
  const initial = options.initialIntervalMs ?? TASK_POLL.initialIntervalMs;
  const max = options.maxIntervalMs ?? TASK_POLL.maxIntervalMs;
  const ratio = options.ratio ?? TASK_POLL.ratio;
  return Math.min(max, Math.max(initial, Math.min(previousMs * 1.5, elapsedMs * ratio)));
}

async function logLines(api: ProxmoxApi, node: string, upid: Upid): Promise<string[]> {
  try {
    // limit=0 returns the whole log; it is read once, only for failures and warnings.
    return (await api.taskLog(node, upid, 0, 0)).map((line) => line.t);
  } catch {
    return [];
  }
}

/**
 * Polls the node's task list (with a `poller`) or `GET /nodes/{node}/tasks/{upid}/status`
 * until the task stops. Transient poll failures
 * (a network blip, a 596) are polled through; permanent ones are thrown. A failed task throws
 * TASK_FAILED with the log's tail; running past the budget throws a TIMEOUT
 * {@link TransientError} (the task may still finish: the caller must not dispatch it again).
 */
export async function waitForTask(
  api: ProxmoxApi,
  node: string,
  upid: Upid,
  options: TaskWaitOptions,
): Promise<TaskResult> {
  let polls = 0;
  let lastError: unknown;
  let lastRunningAt: number | undefined;
  let stoppedAt = 0;
  let interval = options.initialIntervalMs ?? TASK_POLL.initialIntervalMs;
  const unwatch = options.poller?.watch(upid);
  try {
    const stopped = await pollUntil<TaskStatus>({
      clock: options.clock ?? systemClock,
      signal: options.signal,
      budgetMs: options.budgetMs,
      quietMs: options.quietMs,
      firstIntervalMs: interval,
      nextIntervalMs: (previous, elapsed) =>
        (interval = nextPollInterval(previous, elapsed, options)),
      attempt: async (elapsed) => {
        let status: TaskStatus;
        try {
          polls++;
          // A list round up to half an interval old adds at most half an interval of delay.
          status =
            (await options.poller?.status(upid, interval / 2)) ??
            (await api.taskStatus(node, upid));
        } catch (error) {
          if (!isTransient(error)) throw error;
          lastError = error;
          return undefined;
        }
        options.onProgress?.(status, elapsed);
        if (status.status !== "stopped") {
          lastRunningAt = elapsed;
          return undefined;
        }
        stoppedAt = elapsed;
        return status;
      },
      timedOut: (elapsed) =>
        new TransientError(
          "TIMEOUT",
          `PVE task ${upid} on node ${node} was still running after ${Math.round(elapsed / 1000)} s. ` +
            `It may still finish; watch it in the PVE UI (node ${node}, Tasks) before retrying.`,
          { node, upid, vmid: vmidOfUpid(upid) },
          lastError === undefined ? undefined : { cause: lastError },
        ),
      aborted: () => abortedError(`Waiting for task ${upid}`, options.signal),
    });
    const endedAfterMs = lastRunningAt === undefined ? stoppedAt : (lastRunningAt + stoppedAt) / 2;
    return await finish(api, node, upid, stopped, { polls, endedAfterMs }, options);
  } finally {
    unwatch?.();
  }
}

async function finish(
  api: ProxmoxApi,
  node: string,
  upid: Upid,
  status: TaskStatus,
  seen: Pick<TaskResult, "polls" | "endedAfterMs">,
  options: TaskWaitOptions,
): Promise<TaskResult> {
  const exitstatus = status.exitstatus ?? "unexpected status";
  if (exitstatus === "OK") return { upid, exitstatus, warnings: [], ...seen };
  if (/^WARNINGS: \d+$/.test(exitstatus)) {
    const lines = await logLines(api, node, upid);
    const warnings = lines.filter((line) => line.startsWith("WARN"));
    for (const warning of warnings) options.logger?.warn(`${upid}: ${warning}`);
    if (warnings.length === 0) options.logger?.warn(`${upid}: ended with ${exitstatus}`);
    return { upid, exitstatus, warnings, ...seen };
  }
  const lines = await logLines(api, node, upid);
  throw classifyTaskFailure(
    node,
    upid,
    exitstatus,
    lines.slice(-(options.tailLines ?? TASK_POLL.tailLines)),
  );
}
