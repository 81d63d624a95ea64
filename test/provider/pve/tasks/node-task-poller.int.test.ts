import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatchers } from "../../../../provider/pve/api/dispatcher-registry.js";
import { HttpProxmoxApi } from "../../../../provider/pve/api/http-api.js";
import { NodeTaskPoller } from "../../../../provider/pve/tasks/node-task-poller.js";
import { waitForTask } from "../../../../provider/pve/tasks/task-wait.js";
import { parseConnectionConfig } from "../../../../provider/pve/config.js";
import type { ProxmoxError } from "../../../../provider/pve/errors.js";
import { startSimulator, type Simulator } from "../../../../simulator/index.js";

/** Task waits sharing one node's task list, over HTTP against the simulator. */

let sim: Simulator;
let api: HttpProxmoxApi;
const CLONES = 8;

beforeAll(async () => {
  sim = await startSimulator({ taskDurationsMs: { qmclone: 600 } });
  const connection = parseConnectionConfig(
    { endpoint: sim.url, apiToken: sim.apiToken, caCert: sim.caCertPem },
    { env: {} },
  );
  api = new HttpProxmoxApi({ connection, timeoutMs: 5_000 });
});

beforeEach(() => {
  sim.faults.clear();
});

afterAll(async () => {
  await closeSharedDispatchers();
  await sim.close();
});

const clone = (newid: number) =>
  api.cloneVm({ node: "pve1", vmid: 9000, newid, name: `w-${newid}`, full: false });

const sent = (pattern: RegExp) =>
  sim.requestLog.filter((r) => r.method === "GET" && pattern.test(r.path)).length;

describe("node-task-poller against the simulator", () => {
  it("waits for concurrent tasks on one node with one task list request per round", async () => {
    const upids = await Promise.all(Array.from({ length: CLONES }, (_, i) => clone(200 + i)));
    sim.clearRequestLog();
    const poller = new NodeTaskPoller(api, "pve1");
    const results = await Promise.all(
      upids.map((upid) => waitForTask(api, "pve1", upid, { budgetMs: 10_000, poller })),
    );
    expect(results.map((r) => r.exitstatus)).toEqual(upids.map(() => "OK"));
    const lists = sent(/^\/nodes\/pve1\/tasks$/);
    // The waits poll on the same schedule, so each round is one request for all of them (a
    // loaded machine's late timers split a few rounds).
    expect(lists).toBe(poller.requests);
    expect(lists).toBeLessThanOrEqual(Math.max(...results.map((r) => r.polls)) * 1.5);
    // A poll per task per round would have cost this many requests instead.
    const polls = results.reduce((sum, r) => sum + r.polls, 0);
    expect(polls).toBeGreaterThanOrEqual((CLONES / 2) * lists);
    expect(sent(/\/tasks\/UPID:[^/]+\/status$/)).toBe(0);
  });

  it("reports a failed task's exit status and log tail read from the task's own log", async () => {
    sim.faults.failTasks({ type: "qmclone", count: 1 }, "clone failed: out of space");
    const upid = await clone(300);
    const poller = new NodeTaskPoller(api, "pve1");
    const error = await waitForTask(api, "pve1", upid, { budgetMs: 10_000, poller }).then(
      () => undefined,
      (e: unknown) => e as ProxmoxError,
    );
    expect(error?.code).toBe("TASK_FAILED");
    expect(error?.message).toContain("clone failed: out of space");
    expect(error?.context).toMatchObject({
      node: "pve1",
      upid,
      pveMessage: "clone failed: out of space",
    });
    expect(error?.context.taskLogTail).toContain("TASK ERROR: clone failed: out of space");
    // The next wait on the node still reads the list: the failure did not turn it off.
    const next = await clone(301);
    sim.clearRequestLog();
    await waitForTask(api, "pve1", next, { budgetMs: 10_000, poller });
    expect(sent(/^\/nodes\/pve1\/tasks$/)).toBeGreaterThan(0);
    expect(sent(/\/tasks\/UPID:[^/]+\/status$/)).toBe(0);
  });
});
