import type { PveHttpClient } from "../http-client.js";
import * as schemas from "../responses.js";
import type {
  NodeTask,
  NodeTaskQuery,
  TaskCalls,
  TaskLogLine,
  TaskStatus,
  Upid,
} from "../seam/tasks.js";
import { defined } from "./form.js";

/** {@link TaskCalls} over PVE's HTTP API; part of {@link HttpProxmoxApi}. */
export class HttpTaskCalls implements TaskCalls {
  readonly #http: PveHttpClient;

  constructor(http: PveHttpClient) {
    this.#http = http;
  }

  taskStatus(node: string, upid: Upid): Promise<TaskStatus> {
    return this.#http.request(
      "GET",
      ["nodes", node, "tasks", upid, "status"],
      schemas.taskStatusSchema,
    );
  }

  nodeTasks(node: string, query: NodeTaskQuery): Promise<readonly NodeTask[]> {
    return this.#http.request("GET", ["nodes", node, "tasks"], schemas.nodeTasksSchema, {
      query: defined({ ...query }),
    });
  }

  taskLog(
    node: string,
    upid: Upid,
    start?: number,
    limit?: number,
  ): Promise<readonly TaskLogLine[]> {
    return this.#http.request("GET", ["nodes", node, "tasks", upid, "log"], schemas.taskLogSchema, {
      query: defined({ start, limit }),
    });
  }
}
