/**
 * What every operation receives: the API seam and the process-wide helpers around it. Built once
 * per provider process (connection.ts) and by hand in unit tests, so operations never touch
 * configuration, undici or Pulumi themselves.
 */
import type { ClusterVm, ProxmoxApi, Upid } from "./api/proxmox-api";
import { typeOfUpid } from "./upid";
import { NodeTaskPollers } from "./tasks/node-task-poller";
import { TaskDurations } from "./tasks/task-durations";
import { waitForTask } from "./tasks/task-wait";
import { CloneRegistry } from "./clone-registry";
import { KeyedLock } from "./lock";
import { NodeSlots } from "./node-slots";
import { systemClock } from "./retry";

export interface TaskWaitOptions {
  /** Longest the task may run before the wait gives up with TIMEOUT. */
  readonly budgetMs: number;
  /** The step shown in progress lines while waiting, e.g. "cloning template 9000". */
  readonly step: string;
}

export interface TaskOutcome {
  /** `WARNINGS: n` tasks succeed; their warning lines are kept here for the user. */
  readonly warnings: readonly string[];
}

/** How old a listing may be: a couple of seconds by default. */
export interface ListingAge {
  /** A new listing, sent after this call began. */
  readonly fresh?: boolean | undefined;
  /** The last listing however old: for callers that check what they find there live. */
  readonly anyAge?: boolean | undefined;
}

export interface OperationContext {
  readonly api: ProxmoxApi;
  /**
   * Who PVE sees calling: `root@pam!ci` for a token, `root@pam` for a password login; PVE
   * keeps some settings to root@pam (raw host devices). Undefined when unknown (tests).
   */
  readonly caller?: string | undefined;
  /** `/cluster/resources` shared by every resource of this process (single flight + freshness). */
  listVms(options?: ListingAge): Promise<readonly ClusterVm[]>;
  /** Waits for a task with adaptive polling; rejects with TASK_FAILED, TIMEOUT or ABORTED. */
  waitForTask(node: string, upid: Upid, options: TaskWaitOptions): Promise<TaskOutcome>;
  /**
   * How long guests of each template took, in this process, from their start to an address
   * from the guest agent: the address wait sends no poll while no guest of the template has
   * answered sooner.
   */
  readonly guestBoots: TaskDurations;
  /** The clones this process started, by VMID and identity: VMID claims and own-clone checks. */
  readonly clones: CloneRegistry;
  /** FIFO lock per key for this process; key: "vm:<vmid>". */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Runs a clone or migration on `node` within the per-node bound (`heavyTasksPerNode`); while it
   * waits for a slot, `step` gets a progress line saying how long it has waited.
   */
  withHeavyTaskSlot<T>(node: string, step: string, fn: () => Promise<T>): Promise<T>;
  /** One line the user sees in the engine's output; says which step a VM is on. */
  progress(message: string): void;
  /** A warning the user sees (insecure TLS, task warnings, a pending reboot…). */
  warn(message: string): void;
  sleep(ms: number): Promise<void>;
  now(): number;
}

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

/**
 * Builds the OperationContext around any ProxmoxApi: task waits with the provider's polling
 * settings, a keyed lock for this process, and progress/warning lines through `log`. Shared by
 * the provider runtime and the CLI's sweep, so both wait for tasks and report the same way.
 */
export function operationContext(
  api: ProxmoxApi,
  listVms: (options?: ListingAge) => Promise<readonly ClusterVm[]>,
  log: ContextLog,
  limits: ContextLimits = {},
  caller?: string,
): OperationContext {
  const lock = new KeyedLock();
  const heavy = new NodeSlots(limits.heavyTasksPerNode);
  const durations = new TaskDurations();
  // One task list per node per poll round answers every task wait of the process.
  const pollers = new NodeTaskPollers(api);
  return {
    api,
    caller,
    listVms,
    waitForTask: async (node, upid, options) => {
      const type = typeOfUpid(upid) ?? "";
      const result = await waitForTask(api, node, upid, {
        budgetMs: options.budgetMs,
        poller: pollers.forNode(node),
        quietMs: durations.quietMs(type),
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
