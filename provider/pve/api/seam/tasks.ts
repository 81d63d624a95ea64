/** The seam's worker-task calls: a task's status, its node's task list and its log. */

/** A worker task id, e.g. `UPID:pve1:0021B19E:02328820:67CC7B42:qmclone:100:root@pam!ci:`. */
export type Upid = string;

export interface TaskStatus {
  readonly upid: Upid;
  readonly node: string;
  /** `running` or `stopped`. */
  readonly status: string;
  /** `OK`, `WARNINGS: n`, or the error text; present once stopped. */
  readonly exitstatus?: string | undefined;
}

/** One row of `GET /nodes/{node}/tasks`: a running task (`RUNNING`) or a finished one. */
export interface NodeTask {
  readonly upid: Upid;
  /** `RUNNING` while active; once archived, the exit status (`OK`, `WARNINGS: n`, the error). */
  readonly status?: string | undefined;
}

/** The `GET /nodes/{node}/tasks` filters a task wait uses (pve-manager `node_tasks`). */
export interface NodeTaskQuery {
  /** `active` lists running tasks, `archive` finished ones, `all` both (running first). */
  readonly source: "active" | "archive" | "all";
  /** Only tasks started at or after this UNIX time (seconds). */
  readonly since?: number | undefined;
  /** At most this many rows (PVE's default is 50). */
  readonly limit?: number | undefined;
  /** Only this guest's tasks. */
  readonly vmid?: number | undefined;
  /** Only tasks of this worker type, e.g. `qmrollback`. */
  readonly typefilter?: string | undefined;
}

export interface TaskLogLine {
  readonly n: number;
  readonly t: string;
}

export interface TaskCalls {
  taskStatus(node: string, upid: Upid): Promise<TaskStatus>;
  /** GET /nodes/{node}/tasks: one request answers for every task of the node it lists. */
  nodeTasks(node: string, query: NodeTaskQuery): Promise<readonly NodeTask[]>;
  taskLog(
    node: string,
    upid: Upid,
    start?: number,
    limit?: number,
  ): Promise<readonly TaskLogLine[]>;
}
