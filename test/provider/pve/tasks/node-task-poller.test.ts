import { describe, expect, it } from "vitest";
import {
  NodeTaskPoller,
  TASK_LIST_LIMIT,
} from "../../../../provider/pve/tasks/node-task-poller.js";
import type { NodeTask, NodeTaskQuery } from "../../../../provider/pve/api/proxmox-api.js";
import { PermanentError, TransientError } from "../../../../provider/pve/errors.js";

/** A UPID on pve1 started at `starttime` (UNIX seconds). */
const upid = (pid: number, starttime: number, type = "qmstart") =>
  `UPID:pve1:${pid.toString(16).toUpperCase().padStart(8, "0")}:00001000:` +
  `${starttime.toString(16).toUpperCase().padStart(8, "0")}:${type}:100:root@pam!ci:`;

const A = upid(1, 0x67000000);
const B = upid(2, 0x67000010);

/** A task list whose requests answer only when the test says so, with the rows it sets. */
function deferredList() {
  const queries: NodeTaskQuery[] = [];
  const pending: ((rows: readonly NodeTask[]) => void)[] = [];
  const failures: ((error: Error) => void)[] = [];
  const api = {
    nodeTasks(_node: string, query: NodeTaskQuery) {
      queries.push(query);
      return new Promise<readonly NodeTask[]>((resolve, reject) => {
        pending.push(resolve);
        failures.push(reject);
      });
    },
  };
  return {
    api,
    queries,
    answer: (rows: readonly NodeTask[]) => {
      failures.shift();
      pending.shift()?.(rows);
    },
    fail: (error: Error) => {
      pending.shift();
      failures.shift()?.(error);
    },
  };
}

/** Lets the poller's promise callbacks run. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("node-task-poller", () => {
  it("answers concurrent waits on one node with one list request", async () => {
    const list = deferredList();
    const poller = new NodeTaskPoller(list.api, "pve1");
    poller.watch(A);
    poller.watch(B);
    const answers = Promise.all([poller.status(A, 0), poller.status(B, 0)]);
    list.answer([
      { upid: A, status: "RUNNING" },
      { upid: B, status: "OK" },
    ]);
    expect(await answers).toEqual([
      { upid: A, node: "pve1", status: "running" },
      { upid: B, node: "pve1", status: "stopped", exitstatus: "OK" },
    ]);
    expect(poller.requests).toBe(1);
  });

  it("lists running and finished tasks since the oldest watched task started", async () => {
    let now = 0;
    const list = deferredList();
    const poller = new NodeTaskPoller(list.api, "pve1", { now: () => now });
    const unwatchA = poller.watch(A);
    poller.watch(B);
    const first = poller.status(B, 0);
    list.answer([]);
    await first;
    unwatchA();
    now = 100;
    const second = poller.status(B, 0);
    list.answer([]);
    await second;
    expect(list.queries).toEqual([
      { source: "all", since: 0x67000000, limit: TASK_LIST_LIMIT },
      { source: "all", since: 0x67000010, limit: TASK_LIST_LIMIT },
    ]);
  });

  it("reports a failed task's exit status from the archive row", async () => {
    const list = deferredList();
    const poller = new NodeTaskPoller(list.api, "pve1");
    poller.watch(A);
    const answer = poller.status(A, 0);
    list.answer([{ upid: A, status: "start failed: QEMU exited with code 1" }]);
    expect(await answer).toMatchObject({
      status: "stopped",
      exitstatus: "start failed: QEMU exited with code 1",
    });
  });

  it("cannot tell about a watched task the list leaves out or lists without a status", async () => {
    const list = deferredList();
    const poller = new NodeTaskPoller(list.api, "pve1");
    poller.watch(A);
    poller.watch(B);
    const answers = Promise.all([poller.status(A, 0), poller.status(B, 0)]);
    list.answer([{ upid: B }]);
    expect(await answers).toEqual([undefined, undefined]);
  });

  it("never answers from a request sent before the task was watched", async () => {
    const list = deferredList();
    const poller = new NodeTaskPoller(list.api, "pve1");
    poller.watch(A);
    const early = poller.status(A, 1_000);
    poller.watch(B);
    const late = poller.status(B, 1_000);
    // The first request lists B as absent only because B did not exist when it was sent.
    list.answer([{ upid: A, status: "RUNNING" }]);
    await flush();
    expect(poller.requests).toBe(2);
    list.answer([{ upid: B, status: "RUNNING" }]);
    expect(await early).toMatchObject({ status: "running" });
    expect(await late).toMatchObject({ status: "running" });
  });

  it("serves an answer up to the caller's age limit, then sends a new request", async () => {
    let now = 0;
    const list = deferredList();
    const poller = new NodeTaskPoller(list.api, "pve1", { now: () => now });
    poller.watch(A);
    const first = poller.status(A, 50);
    list.answer([{ upid: A, status: "RUNNING" }]);
    await first;
    now = 50;
    expect(await poller.status(A, 50)).toMatchObject({ status: "running" });
    expect(poller.requests).toBe(1);
    now = 51;
    const third = poller.status(A, 50);
    list.answer([{ upid: A, status: "OK" }]);
    expect(await third).toMatchObject({ status: "stopped", exitstatus: "OK" });
    expect(poller.requests).toBe(2);
  });

  it("throws a transient list failure, so the wait polls again", async () => {
    const list = deferredList();
    const poller = new NodeTaskPoller(list.api, "pve1");
    poller.watch(A);
    const answer = poller.status(A, 0);
    list.fail(new TransientError("UNAVAILABLE", "busy"));
    await expect(answer).rejects.toMatchObject({ code: "UNAVAILABLE" });
  });

  it("throws a server error as the task's own status request would, and lists again", async () => {
    const list = deferredList();
    const poller = new NodeTaskPoller(list.api, "pve1");
    poller.watch(A);
    const answer = poller.status(A, 0);
    list.fail(new PermanentError("SERVER", "simulated failure"));
    await expect(answer).rejects.toMatchObject({ code: "SERVER" });
    const next = poller.status(A, 0);
    list.answer([{ upid: A, status: "OK" }]);
    expect(await next).toMatchObject({ status: "stopped" });
    expect(poller.requests).toBe(2);
  });

  it("stops listing after PVE refuses its parameters and leaves each wait to its task", async () => {
    const list = deferredList();
    const poller = new NodeTaskPoller(list.api, "pve1");
    poller.watch(A);
    const answer = poller.status(A, 0);
    list.fail(new PermanentError("INVALID_PARAM", "parameter verification failed"));
    expect(await answer).toBeUndefined();
    expect(await poller.status(A, 0)).toBeUndefined();
    expect(poller.requests).toBe(1);
  });
});
