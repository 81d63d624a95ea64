import { hasCode } from "../errors.js";
import { starttimeOfUpid } from "../upid.js";
import type { NodeTask, ProxmoxApi, TaskStatus, Upid } from "../api/proxmox-api.js";

/**
 * Per-node task polling. PVE has no long-poll for task status, so N concurrent task waits on
 * one node used to cost N `GET …/tasks/{upid}/status` per round. One
 * `GET /nodes/{node}/tasks?source=all&since=…` answers for all of them: running tasks are
 * listed first with status `RUNNING`, finished ones from the archive with their exit status
 * (`OK`, `WARNINGS: n`, the error). `since` is the start of the oldest task watched, so the
 * list holds only what the waits ask about and what started after it.
 *
 * Concurrent waits share one request (single flight), and a round's answer serves a wait that
 * accepts an answer that old. A round only speaks for the tasks watched when it was sent: a
 * task dispatched after a request left is not in its answer, and reading that absence as
 * "finished" would end a wait too early. When a watched task is missing from the answer (past
 * the row limit, or an index line without a status) the list cannot tell, and the caller asks
 * the task's own status instead.
 */

/** Rows asked for per round: the running tasks and the newest finished ones come first. */
export const TASK_LIST_LIMIT = 500;

type Rows = ReadonlyMap<Upid, string | undefined>;

interface Round {
  readonly sentAt: number;
  /** The tasks watched when the request was sent: the only ones it can answer for. */
  readonly covers: ReadonlySet<Upid>;
  readonly rows: Promise<Rows>;
}

export interface NodeTaskPollerOptions {
  readonly now?: (() => number) | undefined;
}

export class NodeTaskPoller {
  readonly #api: Pick<ProxmoxApi, "nodeTasks">;
  readonly #node: string;
  readonly #now: () => number;
  /** Watched tasks and how many waits watch each. */
  readonly #watched = new Map<Upid, number>();
  #flight: Round | undefined;
  /** Set when PVE refused the list's parameters: each wait asks its task instead. */
  #unavailable = false;
  #last: { round: Round; rows: Rows } | undefined;
  /** List requests sent (for tests and the benchmark). */
  requests = 0;

  constructor(
    api: Pick<ProxmoxApi, "nodeTasks">,
    node: string,
    options: NodeTaskPollerOptions = {},
  ) {
    this.#api = api;
    this.#node = node;
    this.#now = options.now ?? Date.now;
  }

  /** Includes `upid` in the rounds sent from now on, until the returned function is called. */
  watch(upid: Upid): () => void {
    this.#watched.set(upid, (this.#watched.get(upid) ?? 0) + 1);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      const count = (this.#watched.get(upid) ?? 1) - 1;
      if (count > 0) this.#watched.set(upid, count);
      else this.#watched.delete(upid);
    };
  }

  /**
   * The status of a watched task from a round sent at most `maxAgeMs` ago (joining the one in
   * flight, or sending one); undefined when the list cannot tell. A refused parameter (a PVE
   * without the list's filters) turns the list off for this node; any other failure is thrown,
   * as the task's own status request would throw it (the wait polls through transient ones).
   */
  async status(upid: Upid, maxAgeMs: number): Promise<TaskStatus | undefined> {
    try {
      return await this.#status(upid, maxAgeMs);
    } catch (error) {
      if (!hasCode(error, "INVALID_PARAM")) throw error;
      this.#unavailable = true;
      return undefined;
    }
  }

  async #status(upid: Upid, maxAgeMs: number): Promise<TaskStatus | undefined> {
    for (;;) {
      if (this.#unavailable) return undefined;
      const last = this.#last;
      if (
        last !== undefined &&
        last.round.covers.has(upid) &&
        this.#now() - last.round.sentAt <= maxAgeMs
      ) {
        return this.#statusIn(last.rows, upid);
      }
      const flight = this.#flight;
      if (flight !== undefined && !flight.covers.has(upid)) {
        // Sent before this task was watched: wait for it to land, then send our own.
        await flight.rows.catch(() => undefined);
        continue;
      }
      const round = flight ?? this.#send();
      return this.#statusIn(await round.rows, upid);
    }
  }

  #statusIn(rows: Rows, upid: Upid): TaskStatus | undefined {
    const status = rows.get(upid);
    if (status === undefined || status === "") return undefined;
    if (status === "RUNNING") return { upid, node: this.#node, status: "running" };
    return { upid, node: this.#node, status: "stopped", exitstatus: status };
  }

  #send(): Round {
    const covers = new Set(this.#watched.keys());
    const starts = [...covers].map((upid) => starttimeOfUpid(upid) ?? 0);
    const since = Math.min(...starts);
    this.requests++;
    const rows = this.#api
      .nodeTasks(this.#node, {
        source: "all",
        since: Number.isFinite(since) ? since : undefined,
        limit: TASK_LIST_LIMIT,
      })
      .then((list) => indexByUpid(list));
    const round: Round = { sentAt: this.#now(), covers, rows };
    this.#flight = round;
    const land = (landed?: Rows) => {
      if (this.#flight === round) this.#flight = undefined;
      if (
        landed !== undefined &&
        (this.#last === undefined || this.#last.round.sentAt <= round.sentAt)
      ) {
        this.#last = { round, rows: landed };
      }
    };
    rows.then(land, () => land());
    return round;
  }
}

function indexByUpid(list: readonly NodeTask[]): Rows {
  return new Map(list.map((task) => [task.upid, task.status]));
}

/** The pollers of one provider process, one per node. */
export class NodeTaskPollers {
  readonly #api: Pick<ProxmoxApi, "nodeTasks">;
  readonly #options: NodeTaskPollerOptions;
  readonly #byNode = new Map<string, NodeTaskPoller>();

  constructor(api: Pick<ProxmoxApi, "nodeTasks">, options: NodeTaskPollerOptions = {}) {
    this.#api = api;
    this.#options = options;
  }

  forNode(node: string): NodeTaskPoller {
    let poller = this.#byNode.get(node);
    if (poller === undefined) {
      poller = new NodeTaskPoller(this.#api, node, this.#options);
      this.#byNode.set(node, poller);
    }
    return poller;
  }
}
