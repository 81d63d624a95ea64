import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { NodeTaskPoller } from "../../../../provider/pve/tasks/node-task-poller.js";
import type { NodeTaskQuery } from "../../../../provider/pve/api/proxmox-api.js";
import { PermanentError, TransientError } from "../../../../provider/pve/errors.js";
import {
  nextPollInterval,
  TASK_POLL,
  waitForTask,
} from "../../../../provider/pve/tasks/task-wait.js";
import { taskApi } from "./task-fake.js";

const UPID = "UPID:pve1:0021B19E:02328820:67CC7B42:qmclone:100:root@pam!ci:";

/** Runs the wait under fake timers and returns when it settled, in fake milliseconds. */
async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown; at: number }> {
  let outcome: { value?: T; error?: unknown } | undefined;
  promise.then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  while (outcome === undefined) await vi.advanceTimersByTimeAsync(10);
  return { ...outcome, at: Date.now() };
}

describe("tasks", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  describe("nextPollInterval", () => {
    it("starts at the initial interval and grows with elapsed time up to the cap", () => {
      const { initialIntervalMs: first, maxIntervalMs: cap, ratio } = TASK_POLL;
      expect(nextPollInterval(first, 0)).toBe(first);
      expect(nextPollInterval(first, 10_000)).toBe(first * 1.5);
      expect(nextPollInterval(1_000, 2_000)).toBe(2_000 * ratio);
      expect(nextPollInterval(cap, 600_000)).toBe(cap);
    });
  });

  describe("waitForTask", () => {
    it.each([500, 2_000, 10_000])(
      "sees a %i ms task done within the ratio of its duration",
      async (ms) => {
        const api = taskApi({ doneAt: ms, exitstatus: "OK" }, Date.now);
        const { value, at } = await settle(waitForTask(api, "pve1", UPID, { budgetMs: 60_000 }));
        expect(value).toMatchObject({ upid: UPID, exitstatus: "OK", warnings: [] });
        expect(at - ms).toBeLessThanOrEqual(ms * TASK_POLL.ratio);
        expect(api.logCalls).toBe(0);
      },
    );

    it("tells when the task ended: midway between the last poll that saw it running and the first that saw it stopped", async () => {
      const api = taskApi({ doneAt: 3_000, exitstatus: "OK" }, Date.now);
      const { value } = await settle(waitForTask(api, "pve1", UPID, { budgetMs: 60_000 }));
      const { lastRunningAt = Number.NaN, firstStoppedAt = Number.NaN } = api;
      expect(lastRunningAt).toBeLessThan(3_000);
      expect(firstStoppedAt).toBeGreaterThanOrEqual(3_000);
      expect(value?.endedAfterMs).toBe((lastRunningAt + firstStoppedAt) / 2);
    });

    it("tells the first poll's time when no poll saw the task running", async () => {
      const api = taskApi({ doneAt: 1_000, exitstatus: "OK" }, Date.now);
      const { value } = await settle(
        waitForTask(api, "pve1", UPID, { budgetMs: 60_000, quietMs: 2_000 }),
      );
      expect(api.statusCalls).toBe(1);
      expect(value?.endedAfterMs).toBe(2_000);
    });

    it("sends no poll during the quiet time and still sees the task done within 10 %", async () => {
      const api = taskApi({ doneAt: 3_000, exitstatus: "OK" }, Date.now);
      const quiet = await settle(
        waitForTask(api, "pve1", UPID, { budgetMs: 60_000, quietMs: 2_700 }),
      );
      const loud = taskApi({ doneAt: 3_000, exitstatus: "OK" }, Date.now);
      vi.setSystemTime(0);
      await settle(waitForTask(loud, "pve1", UPID, { budgetMs: 60_000 }));
      expect(quiet.at - 3_000).toBeLessThanOrEqual(300);
      expect(api.statusCalls).toBeLessThanOrEqual(5);
      expect(loud.statusCalls).toBeGreaterThan(api.statusCalls * 3);
    });

    it("keeps the number of polls logarithmic in the duration", async () => {
      const api = taskApi({ doneAt: 600_000, exitstatus: "OK" }, Date.now);
      await settle(waitForTask(api, "pve1", UPID, { budgetMs: 3_600_000 }));
      expect(api.statusCalls).toBeLessThan(200);
    });

    it("returns WARNINGS as success and passes each warning to the logger", async () => {
      const api = taskApi(
        {
          doneAt: 100,
          exitstatus: "WARNINGS: 1",
          log: [
            "create full clone of drive scsi0",
            "WARN: unable to copy pending changes",
            "TASK WARNINGS: 1",
          ],
        },
        Date.now,
      );
      const warn = vi.fn();
      const { value } = await settle(
        waitForTask(api, "pve1", UPID, { budgetMs: 10_000, logger: { warn } }),
      );
      expect(value).toMatchObject({
        exitstatus: "WARNINGS: 1",
        warnings: ["WARN: unable to copy pending changes"],
      });
      expect(warn).toHaveBeenCalledWith(`${UPID}: WARN: unable to copy pending changes`);
    });

    it("throws TASK_FAILED with the log tail for an error exit status", async () => {
      const log = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
      const api = taskApi({ doneAt: 100, exitstatus: "clone failed: out of space", log }, Date.now);
      const { error } = await settle(
        waitForTask(api, "pve1", UPID, { budgetMs: 10_000, tailLines: 3 }),
      );
      expect(error).toBeInstanceOf(PermanentError);
      expect(error).toMatchObject({
        code: "TASK_FAILED",
        context: {
          node: "pve1",
          vmid: 100,
          upid: UPID,
          taskLogTail: ["line 28", "line 29", "line 30"],
        },
      });
    });

    it("polls through transient errors", async () => {
      const api = taskApi(
        {
          doneAt: 0,
          exitstatus: "OK",
          failures: [
            new TransientError("UNAVAILABLE", "596"),
            new TransientError("NETWORK", "reset"),
          ],
        },
        Date.now,
      );
      const { value } = await settle(waitForTask(api, "pve1", UPID, { budgetMs: 10_000 }));
      expect(value?.polls).toBe(3);
    });

    it("throws a permanent poll error at once", async () => {
      const api = taskApi(
        {
          doneAt: 0,
          exitstatus: "OK",
          failures: [new PermanentError("NOT_FOUND", "no such task")],
        },
        Date.now,
      );
      const { error } = await settle(waitForTask(api, "pve1", UPID, { budgetMs: 10_000 }));
      expect(error).toMatchObject({ code: "NOT_FOUND" });
    });

    it("throws a transient TIMEOUT naming the UPID when the budget runs out", async () => {
      const api = taskApi({ doneAt: 60_000, exitstatus: "OK" }, Date.now);
      const { error, at } = await settle(waitForTask(api, "pve1", UPID, { budgetMs: 5_000 }));
      expect(error).toBeInstanceOf(TransientError);
      expect(error).toMatchObject({
        code: "TIMEOUT",
        context: { node: "pve1", upid: UPID, vmid: 100 },
        message:
          `PVE task ${UPID} on node pve1 was still running after 5 s. It may still finish; ` +
          "watch it in the PVE UI (node pve1, Tasks) before retrying.",
      });
      expect(at).toBeLessThanOrEqual(5_010);
    });

    it("stops with ABORTED when the signal aborts", async () => {
      const api = taskApi({ doneAt: 60_000, exitstatus: "OK" }, Date.now);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 1_000);
      const { error, at } = await settle(
        waitForTask(api, "pve1", UPID, { budgetMs: 60_000, signal: controller.signal }),
      );
      expect(error).toMatchObject({ code: "ABORTED" });
      expect(at).toBeLessThan(1_100);
    });

    it("reports progress on every poll", async () => {
      const api = taskApi({ doneAt: 200, exitstatus: "OK" }, Date.now);
      const onProgress = vi.fn();
      const { value } = await settle(
        waitForTask(api, "pve1", UPID, { budgetMs: 10_000, onProgress }),
      );
      expect(onProgress).toHaveBeenCalledTimes(value?.polls ?? -1);
      expect(onProgress.mock.lastCall?.[0]).toMatchObject({ status: "stopped", exitstatus: "OK" });
    });

    it("reads the node's task list and asks the task itself only when the list cannot tell", async () => {
      const api = taskApi({ doneAt: 1_000, exitstatus: "OK" }, Date.now);
      // The list shows the task running, then leaves it out (as past its row limit).
      const list = vi.fn(() =>
        Promise.resolve(Date.now() < 1_000 ? [{ upid: UPID, status: "RUNNING" }] : []),
      );
      const poller = new NodeTaskPoller({ nodeTasks: list }, "pve1");
      const { value } = await settle(waitForTask(api, "pve1", UPID, { budgetMs: 60_000, poller }));
      expect(value).toMatchObject({ exitstatus: "OK" });
      expect(list.mock.calls.length).toBeGreaterThan(1);
      expect(api.statusCalls).toBe(1);
    });

    it("stops watching the task once the wait ends, failed or not", async () => {
      const api = taskApi({ doneAt: 0, exitstatus: "clone failed: out of space" }, Date.now);
      const list = vi.fn((_node: string, _query: NodeTaskQuery) =>
        Promise.resolve([{ upid: UPID, status: "clone failed: out of space" }]),
      );
      const poller = new NodeTaskPoller({ nodeTasks: list }, "pve1");
      const failed = await settle(waitForTask(api, "pve1", UPID, { budgetMs: 60_000, poller }));
      expect(failed.error).toMatchObject({ code: "TASK_FAILED" });
      const LATER = UPID.replace("67CC7B42", "67CC7C00");
      await settle(waitForTask(api, "pve1", LATER, { budgetMs: 60_000, poller }));
      // The second wait's list starts at its own task: the failed one no longer widens it.
      expect(list.mock.calls.at(-1)?.[1].since).toBe(0x67cc7c00);
    });
  });
});
