/**
 * What every operation receives: the API seam and the process-wide helpers around it. Built once
 * per provider process (pve/connection.ts) and by hand in unit tests, so operations never touch
 * configuration, undici or Pulumi themselves.
 */
import type { ClusterVm, ProxmoxApi, Upid } from "./api/proxmox-api";
import type { TaskDurations } from "./tasks/task-durations";
import type { CloneRegistry } from "./clone-registry";

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
