/**
 * What every operation receives: the API seam and the process-wide helpers around it. Built once
 * per provider process (runtime.ts) and by hand in unit tests, so operations never touch
 * configuration, undici or Pulumi themselves.
 */
import type { ClusterVm, ProxmoxApi, Upid } from "./api/proxmox-api";

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

export interface OperationContext {
  readonly api: ProxmoxApi;
  /** `/cluster/resources` shared by every resource of this process (single flight + freshness). */
  listVms(options?: { fresh?: boolean }): Promise<readonly ClusterVm[]>;
  /** Waits for a task with adaptive polling; rejects with TASK_FAILED, TIMEOUT or ABORTED. */
  waitForTask(node: string, upid: Upid, options: TaskWaitOptions): Promise<TaskOutcome>;
  /** FIFO lock per key for this process; keys: "vmid" and "vm:<vmid>". */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** One line the user sees in the engine's output; says which step a VM is on. */
  progress(message: string): void;
  /** A warning the user sees (insecure TLS, task warnings, a pending reboot…). */
  warn(message: string): void;
  sleep(ms: number): Promise<void>;
  now(): number;
}
