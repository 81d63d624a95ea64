import type { SimContext } from "../context.js";
import { NODE, paramError, permError, Reply, type Params, type Route } from "../http/index.js";
import type { TaskRecord } from "../model/types.js";

const UPID_RE =
  /^UPID:([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?):([0-9A-F]{8}):([0-9A-F]{8,9}):([0-9A-F]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$/;

/** Tasks.pm's check_task_user: a token owns its own tasks, a user its own and its tokens'. */
export function ownsTask(task: TaskRecord, caller: string): boolean {
  return caller === task.user || caller === task.user.split("!")[0];
}

/** read_task_status/read_task_log's lookup: parse, find on the node, then owner or Sys.Audit. */
function findTask(sim: SimContext, tokenId: string, params: Params): TaskRecord {
  const upid = String(params["upid"]);
  if (!UPID_RE.test(upid)) throw paramError({ upid: "unable to parse worker upid" });
  const node = String(params["node"]);
  const task = sim.tasks.tasks.get(upid);
  if (task === undefined || task.node !== node) throw paramError({ upid: "no such task" });
  if (!ownsTask(task, tokenId) && !sim.tokens.has(tokenId, `/nodes/${node}`, "Sys.Audit")) {
    throw permError(`/nodes/${node}, Sys.Audit`);
  }
  return task;
}

/**
 * What the UPID says about a task, as task status and task lists show it: a token's task has
 * the owner in `user` and the token name in `tokenid` (Tasks.pm `convert_token_task`).
 */
export function taskIdentity(task: TaskRecord): Record<string, unknown> {
  const bang = task.user.indexOf("!");
  const identity: Record<string, unknown> = {
    upid: task.upid,
    node: task.node,
    pid: task.pid,
    pstart: task.pstart,
    starttime: task.starttime,
    type: task.type,
    id: task.id,
    user: bang < 0 ? task.user : task.user.slice(0, bang),
  };
  if (bang >= 0) identity["tokenid"] = task.user.slice(bang + 1);
  return identity;
}

const TASK_PARAMS = { node: NODE, upid: { type: "string", maxLength: 256 } } as const;

export const taskRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/nodes/{node}/tasks/{upid}/status",
    params: TASK_PARAMS,
    handler: ({ sim, tokenId, params }) => {
      const task = findTask(sim, tokenId, params);
      const data: Record<string, unknown> = { ...taskIdentity(task), status: task.status };
      if (task.exitstatus !== undefined) data["exitstatus"] = task.exitstatus;
      return data;
    },
  },
  {
    method: "GET",
    path: "/nodes/{node}/tasks/{upid}/log",
    params: {
      ...TASK_PARAMS,
      start: { type: "integer", optional: true, min: 0 },
      limit: { type: "integer", optional: true, min: 0 },
      download: { type: "boolean", optional: true },
    },
    handler: ({ sim, tokenId, params }) => {
      const task = findTask(sim, tokenId, params);
      const lines = task.log.length === 0 ? ["no content"] : task.log;
      const start = Number(params["start"] ?? 0);
      const limit = Number(params["limit"] ?? 50);
      const slice = limit === 0 ? lines.slice(start) : lines.slice(start, start + limit);
      return new Reply(
        slice.map((t, i) => ({ n: start + i + 1, t })),
        { total: lines.length },
      );
    },
  },
];
