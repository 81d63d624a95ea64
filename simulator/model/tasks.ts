import type { TaskRecord } from "./types.js";

/** What a task body can do while it runs. */
export interface TaskContext {
  readonly task: TaskRecord;
  /** Appends a plain log line. */
  log(line: string): void;
  /** Appends `WARN: <line>` and counts it, like PVE's log_warn. */
  warn(line: string): void;
  /** Waits part of the task's duration (fraction 0..1); resolves at once after fastForward(). */
  wait(fraction: number): Promise<void>;
}

export type TaskBody = (ctx: TaskContext) => Promise<void>;

/** A scripted outcome for the next matching task (fault injection). */
export interface TaskFault {
  readonly type?: string;
  readonly id?: string;
  readonly message?: string;
  readonly warnings?: number;
  remaining: number;
}

export interface TaskRunnerOptions {
  durationMs(type: string): number;
  /** Called whenever a task starts or ends, so the state file can be written. */
  onChange(): void;
}

/**
 * Runs worker tasks as PVE's fork_worker does: the caller gets the UPID at once, the body runs
 * for the task type's duration, and the log ends with `TASK OK`, `TASK WARNINGS: n` or
 * `TASK ERROR: <message>` (newlines replaced by spaces).
 */
export class TaskRunner {
  readonly tasks = new Map<string, TaskRecord>();
  readonly faults: TaskFault[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private fast = false;
  private nextPid = 0x1000 + Math.floor(Math.random() * 0x10000);
  private readonly bootTicks = Math.floor(Math.random() * 0x1000000) + 0x100000;

  constructor(private readonly options: TaskRunnerOptions) {}

  /**
   * Starts a task and returns its record (whose `upid` the API answers with). `undo` reverts
   * what the API call did before the worker started, for an injected failure, which skips the
   * body and so the body's own clean-up (a create's config, made before its worker runs).
   */
  start(
    node: string,
    type: string,
    id: string,
    user: string,
    body: TaskBody,
    undo?: () => void,
  ): TaskRecord {
    const pid = (this.nextPid += 1 + Math.floor(Math.random() * 7));
    const pstart = this.bootTicks + Math.floor(performance.now() / 10);
    const starttime = Math.floor(Date.now() / 1000);
    const hex = (n: number): string => n.toString(16).toUpperCase().padStart(8, "0");
    const upid = `UPID:${node}:${hex(pid)}:${hex(pstart)}:${hex(starttime)}:${type}:${id}:${user}:`;
    const task: TaskRecord = {
      upid,
      node,
      pid,
      pstart,
      starttime,
      type,
      id,
      user,
      status: "running",
      log: [],
    };
    this.tasks.set(upid, task);
    const fault = this.takeFault(type, id);
    const run = this.execute(task, body, fault, undo).finally(() => this.running.delete(run));
    this.running.add(run);
    this.options.onChange();
    return task;
  }

  /** Makes every pending wait resolve at once (clean shutdown), then waits for all bodies. */
  async fastForward(): Promise<void> {
    this.fast = true;
    for (const [timer, resolve] of this.timers) {
      clearTimeout(timer);
      resolve();
    }
    this.timers.clear();
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /** A delay that fastForward() cuts short; used by the guest and clone steps too. */
  sleep(ms: number): Promise<void> {
    if (this.fast || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.set(timer, resolve);
    });
  }

  private takeFault(type: string, id: string): TaskFault | undefined {
    const index = this.faults.findIndex(
      (f) => (f.type === undefined || f.type === type) && (f.id === undefined || f.id === id),
    );
    const fault = this.faults[index];
    if (fault === undefined) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults.splice(index, 1);
    return fault;
  }

  private async execute(
    task: TaskRecord,
    body: TaskBody,
    fault: TaskFault | undefined,
    undo: (() => void) | undefined,
  ): Promise<void> {
    const duration = this.options.durationMs(task.type);
    let warnings = 0;
    const ctx: TaskContext = {
      task,
      log: (line) => void task.log.push(line),
      warn: (line) => {
        warnings += 1;
        task.log.push(`WARN: ${line}`);
      },
      wait: (fraction) => this.sleep(duration * fraction),
    };
    let error: string | undefined;
    try {
      if (fault?.message !== undefined) {
        // An injected failure: the task runs its course but changes nothing.
        await ctx.wait(1);
        undo?.();
        throw new Error(fault.message);
      }
      await body(ctx);
      for (let i = 0; i < (fault?.warnings ?? 0); i += 1) ctx.warn("simulated warning");
    } catch (err) {
      error = (err instanceof Error ? err.message : String(err))
        .replace(/\n+$/, "")
        .replace(/\n/g, " ");
    }
    if (error !== undefined) {
      task.log.push(`TASK ERROR: ${error}`);
      task.exitstatus = error;
    } else if (warnings > 0) {
      task.log.push(`TASK WARNINGS: ${warnings}`);
      task.exitstatus = `WARNINGS: ${warnings}`;
    } else {
      task.log.push("TASK OK");
      task.exitstatus = "OK";
    }
    task.endtime = Math.floor(Date.now() / 1000);
    task.status = "stopped";
    this.options.onChange();
  }
}
