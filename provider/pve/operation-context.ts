/**
 * Builds the OperationContext around any ProxmoxApi: task waits with the provider's polling
 * settings, a keyed lock for this process, and progress/warning lines through `log`. Shared by
 * the provider runtime and the CLI's sweep, so both wait for tasks and report the same way.
 */
import type { ClusterVm, ProxmoxApi } from "./api/proxmox-api";
import { typeOfUpid } from "./upid";
import { NodeTaskPollers } from "./tasks/node-task-poller";
import { TaskDurations } from "./tasks/task-durations";
import { waitForTask } from "./tasks/task-wait";
import { CloneRegistry } from "./clone-registry";
import type { ListingAge, OperationContext } from "./context";
import { KeyedLock } from "./lock";
import { NodeSlots } from "./node-slots";
import { systemClock } from "./retry";

export interface ContextLog {
  progress(message: string): void;
  warn(message: string): void;
}

/** A long task, or a long wait for a heavy-task slot, prints a "still waiting" line this often. */
const TASK_PROGRESS_EVERY_MS = 15_000;

export interface ContextLimits {
  /** Clones and migrations run at once per node; undefined: no bound. */
  readonly heavyTasksPerNode?: number | undefined;
}

export function operationContext(
  api: ProxmoxApi,
  listVms: (options?: ListingAge) => Promise<readonly ClusterVm[]>,
  log: ContextLog,
  limits: ContextLimits = {},
): OperationContext {
  const lock = new KeyedLock();
  const heavy = new NodeSlots(limits.heavyTasksPerNode);
  const durations = new TaskDurations();
  // One task list per node per poll round answers every task wait of the process.
  const pollers = new NodeTaskPollers(api);
  return {
    api,
    listVms,
    waitForTask: async (node, upid, options) => {
      const type = typeOfUpid(upid) ?? "";
      const result = await waitForTask(api, node, upid, {
        budgetMs: options.budgetMs,
        poller: pollers.forNode(node),
        quietMs: durations.quietMs(type),
        // Seen done within ~10 % of its duration, for ~30 polls on a 2 s task.
        initialIntervalMs: 100,
        ratio: 0.1,
        logger: { warn: (m) => log.warn(`${options.step}: ${m}`) },
        onProgress: progressEvery(TASK_PROGRESS_EVERY_MS, (elapsedMs) =>
          log.progress(`${options.step} (${Math.round(elapsedMs / 1000)} s)`),
        ),
      });
      durations.record(type, result.endedAfterMs);
      return { warnings: result.warnings };
    },
    guestBoots: new TaskDurations(),
    clones: new CloneRegistry(),
    withLock: (key, fn) => lock.withLock(key, fn),
    withHeavyTaskSlot: (node, step, fn) =>
      heavy.run(node, fn, () => slotWaitLines(log, step, node, heavy.limit)),
    progress: (message) => log.progress(message),
    warn: (message) => log.warn(message),
    sleep: (ms) => systemClock.sleep(ms),
    now: () => systemClock.now(),
  };
}

function progressEvery(intervalMs: number, emit: (elapsedMs: number) => void) {
  let next = intervalMs;
  return (_status: unknown, elapsedMs: number) => {
    if (elapsedMs >= next) {
      next = elapsedMs + intervalMs;
      emit(elapsedMs);
    }
  };
}

/**
 * The lines of a wait for a heavy-task slot: one as it begins, one every
 * TASK_PROGRESS_EVERY_MS with the seconds waited, and one with the whole wait once granted.
 */
function slotWaitLines(log: ContextLog, step: string, node: string, limit: number | undefined) {
  const started = systemClock.now();
  const waiting = `${step}: waiting for a heavy-task slot on ${node}`;
  log.progress(`${waiting} (all ${limit} taken; proxmox:heavyTasksPerNode)`);
  const timer = setInterval(() => {
    log.progress(`${waiting} (${Math.round((systemClock.now() - started) / 1000)} s)`);
  }, TASK_PROGRESS_EVERY_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    const waited = ((systemClock.now() - started) / 1000).toFixed(1);
    log.progress(`${step}: got a heavy-task slot on ${node} after ${waited} s`);
  };
}
