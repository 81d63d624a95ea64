import type {
  ProxmoxApi,
  TaskLogLine,
  TaskStatus,
} from "../../../../provider/pve/api/proxmox-api.js";

/** A scripted task: running until `doneAt` (on the fake clock), then `exitstatus`. */
export interface ScriptedTask {
  readonly doneAt: number;
  readonly exitstatus: string;
  readonly log?: readonly string[];
  /** Errors thrown by the first status polls, in order. */
  readonly failures?: readonly Error[];
}

export interface TaskFakeCounts {
  statusCalls: number;
  logCalls: number;
  /** When a status poll last answered "running", and first answered "stopped". */
  lastRunningAt: number | undefined;
  firstStoppedAt: number | undefined;
}

/** Only the task calls of ProxmoxApi; the others throw if a test reaches them. */
export function taskApi(task: ScriptedTask, now: () => number): ProxmoxApi & TaskFakeCounts {
  const failures = [...(task.failures ?? [])];
  const api = {
    statusCalls: 0,
    logCalls: 0,
    lastRunningAt: undefined as number | undefined,
    firstStoppedAt: undefined as number | undefined,
    taskStatus(node: string, upid: string): Promise<TaskStatus> {
      api.statusCalls++;
      const failure = failures.shift();
      if (failure) return Promise.reject(failure);
      const done = now() >= task.doneAt;
      if (!done) api.lastRunningAt = now();
      else api.firstStoppedAt ??= now();
      return Promise.resolve({
        upid,
        node,
        status: done ? "stopped" : "running",
        ...(done ? { exitstatus: task.exitstatus } : {}),
      });
    },
    taskLog(): Promise<readonly TaskLogLine[]> {
      api.logCalls++;
      return Promise.resolve((task.log ?? []).map((t, i) => ({ n: i + 1, t })));
    },
  };
  return new Proxy(api, {
    get(target, property) {
      if (property in target) return target[property as keyof typeof target];
      throw new Error(`taskApi: unexpected call ${String(property)}`);
    },
  }) as unknown as ProxmoxApi & TaskFakeCounts;
}
