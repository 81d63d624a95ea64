/**
 * Task lists: pve-manager `PVE/API2/Tasks.pm` (`node_tasks`) for one node with its filters, and
 * `PVE/API2/Cluster.pm` (`tasks`) for the recent tasks of every node.
 */
import { hasPriv } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { NODE, Reply, splitList, type Params, type Route } from "../http/index.js";
import type { TaskRecord } from "../model/types.js";
import { ownsTask, taskIdentity } from "./tasks.js";

/** How many recent tasks each node publishes to the cluster-wide list. */
const CLUSTER_TASKS_PER_NODE = 50;

const STATUS_TYPES = ["ok", "warning", "error", "unknown"] as const;
type StatusType = (typeof STATUS_TYPES)[number];

/** PVE::Tools::upid_normalize_status_type. */
function statusType(status: string | undefined): StatusType {
  if (status === undefined || status === "") return "unknown";
  if (status === "OK") return "ok";
  if (/^WARNINGS: \d+$/.test(status)) return "warning";
  return "error";
}

/** The row a task list shows: the UPID's facts, and the end time and exit status once done. */
function taskRow(task: TaskRecord): Record<string, unknown> {
  const row = taskIdentity(task);
  if (task.status === "stopped") {
    if (task.endtime !== undefined) row["endtime"] = task.endtime;
    if (task.exitstatus !== undefined) row["status"] = task.exitstatus;
  }
  return row;
}

/** The status types a node task list keeps: `errors` drops OK, else `statusfilter` picks. */
function wantedStatuses(params: Params): ReadonlySet<StatusType> {
  if (params["errors"] === 1) return new Set<StatusType>(["warning", "error", "unknown"]);
  const filter = params["statusfilter"];
  if (filter === undefined) return new Set(STATUS_TYPES);
  return new Set(splitList(String(filter)).map((s) => s.toLowerCase() as StatusType));
}

function nodeTaskFilter(
  sim: SimContext,
  caller: string,
  params: Params,
): (task: TaskRecord) => boolean {
  const node = String(params["node"]);
  const auditor = hasPriv(sim, caller, `/nodes/${node}`, "Sys.Audit");
  const userfilter = params["userfilter"] === undefined ? "" : String(params["userfilter"]);
  const statuses = wantedStatuses(params);
  return (task) => {
    if (task.node !== node) return false;
    const row = taskRow(task);
    if (userfilter !== "" && !String(row["user"]).toLowerCase().includes(userfilter.toLowerCase()))
      return false;
    if (!auditor && !ownsTask(task, caller)) return false;
    if (params["typefilter"] !== undefined && task.type !== params["typefilter"]) return false;
    if (params["vmid"] !== undefined && task.id !== String(params["vmid"])) return false;
    if (params["since"] !== undefined && task.starttime < Number(params["since"])) return false;
    if (params["until"] !== undefined && task.starttime > Number(params["until"])) return false;
    // Running tasks are filtered before their status is known, so they count as "unknown".
    const status = task.status === "running" ? undefined : task.exitstatus;
    return statuses.has(statusType(status));
  };
}

/** Newest first: running tasks by start, archived ones by end (the index is read backwards). */
function newestFirst(tasks: TaskRecord[], key: (t: TaskRecord) => number): TaskRecord[] {
  return tasks.sort((a, b) => key(b) - key(a) || b.pstart - a.pstart);
}

export const taskListRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/nodes/{node}/tasks",
    params: {
      node: NODE,
      start: { type: "integer", optional: true, min: 0 },
      limit: { type: "integer", optional: true, min: 0 },
      userfilter: { type: "string", optional: true },
      typefilter: { type: "string", optional: true },
      vmid: { type: "integer", optional: true, format: "pve-vmid", min: 100, max: 999999999 },
      errors: { type: "boolean", optional: true },
      source: { type: "string", optional: true, enum: ["archive", "active", "all"] },
      since: { type: "integer", optional: true },
      until: { type: "integer", optional: true },
      statusfilter: {
        type: "string",
        optional: true,
        pattern: /^(?:(?:ok|warning|error|unknown)(?:[,;\s]+|$))+$/i,
      },
    },
    handler: ({ sim, tokenId, params }) => {
      const keep = nodeTaskFilter(sim, tokenId, params);
      const source = String(params["source"] ?? "archive");
      const all = [...sim.tasks.tasks.values()].filter(keep);
      const active = newestFirst(
        all.filter((t) => t.status === "running"),
        (t) => t.starttime,
      );
      const archived = newestFirst(
        all.filter((t) => t.status === "stopped"),
        (t) => t.endtime ?? t.starttime,
      );
      const listed = [
        ...(source === "archive" ? [] : active),
        ...(source === "active" ? [] : archived),
      ];
      const start = Number(params["start"] ?? 0);
      const limit = Number(params["limit"] ?? 50);
      const rows = listed.slice(start, start + limit).map((task) => {
        const row = taskRow(task);
        if (task.status === "running") row["status"] = "RUNNING";
        return row;
      });
      return new Reply(rows, { total: listed.length });
    },
  },
  {
    method: "GET",
    path: "/cluster/tasks",
    params: {},
    handler: ({ sim, tokenId }) => {
      const all = hasPriv(sim, tokenId, "/", "Sys.Audit");
      const rows: Record<string, unknown>[] = [];
      for (const node of sim.cluster.nodes.keys()) {
        const recent = newestFirst(
          [...sim.tasks.tasks.values()].filter((t) => t.node === node),
          (t) => t.starttime,
        ).slice(0, CLUSTER_TASKS_PER_NODE);
        // Cluster.pm compares the owner, split from a token id, with the caller: so a token
        // without Sys.Audit on `/` sees none of its tasks here.
        for (const task of recent) {
          const row = taskRow(task);
          if (all || row["user"] === tokenId) rows.push(row);
        }
      }
      return rows;
    },
  },
];
