import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PermanentError, TransientError } from "../../provider/errors.js";
import { backoffDelay, poll, runCall, runTask } from "../../provider/retry.js";

const locked = () => new TransientError("LOCKED", "VM 100 is locked (clone)");
const missing = () => new PermanentError("NOT_FOUND", "VM 100 does not exist");
const half = () => 0.5;

describe("retry", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  describe("backoffDelay", () => {
    it("doubles from the initial delay up to the cap, with equal jitter", () => {
      const options = { budgetMs: 60_000, initialDelayMs: 100, maxDelayMs: 1_000 };
      expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, { ...options, random: () => 0 }))).toEqual([
        50, 100, 200, 400, 500,
      ]);
      expect(backoffDelay(5, { ...options, random: () => 0.999999 })).toBe(1_000);
    });
  });

  describe("runCall", () => {
    it("retries a transient error and returns the later success", async () => {
      const fn = vi
        .fn<(attempt: number) => Promise<string>>()
        .mockRejectedValueOnce(locked())
        .mockResolvedValueOnce("done");
      const onRetry = vi.fn();
      const result = runCall(fn, { budgetMs: 10_000, initialDelayMs: 200, random: half, onRetry });
      await vi.advanceTimersByTimeAsync(150);
      expect(fn).toHaveBeenCalledTimes(2);
      await expect(result).resolves.toBe("done");
      expect(onRetry).toHaveBeenCalledWith(expect.objectContaining({ code: "LOCKED" }), 1, 150);
      expect(fn.mock.calls.map(([attempt]) => attempt)).toEqual([1, 2]);
    });

    it("throws a permanent error at once", async () => {
      const fn = vi.fn(() => Promise.reject(missing()));
      await expect(runCall(fn, { budgetMs: 10_000 })).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect(fn).toHaveBeenCalledTimes(1);
    });

    it("does not retry an error that is not a ProxmoxError", async () => {
      const fn = vi.fn(() => Promise.reject(new TypeError("bug")));
      await expect(runCall(fn, { budgetMs: 10_000 })).rejects.toThrow("bug");
      expect(fn).toHaveBeenCalledTimes(1);
    });

    it("gives up with the last transient error when the budget would be exceeded", async () => {
      const fn = vi.fn(() => Promise.reject(locked()));
      const result = runCall(fn, { budgetMs: 1_000, initialDelayMs: 400, random: half });
      const settled = expect(result).rejects.toMatchObject({ code: "LOCKED" });
      await vi.advanceTimersByTimeAsync(1_000);
      await settled;
      // Delays 300 (t=300) and 600 (t=900); the next, 1200, would pass t=1000.
      expect(fn).toHaveBeenCalledTimes(3);
    });

    it("stops after maxAttempts", async () => {
      const fn = vi.fn(() => Promise.reject(locked()));
      const result = runCall(fn, { budgetMs: 600_000, maxAttempts: 2, initialDelayMs: 10 });
      const settled = expect(result).rejects.toMatchObject({ code: "LOCKED" });
      await vi.advanceTimersByTimeAsync(100);
      await settled;
      expect(fn).toHaveBeenCalledTimes(2);
    });

    it("ends a back-off sleep with ABORTED when the signal aborts", async () => {
      const controller = new AbortController();
      const fn = vi.fn(() => Promise.reject(locked()));
      const result = runCall(fn, {
        budgetMs: 60_000,
        initialDelayMs: 5_000,
        signal: controller.signal,
      });
      const settled = expect(result).rejects.toMatchObject({ code: "ABORTED", transient: false });
      await vi.advanceTimersByTimeAsync(100);
      controller.abort();
      await settled;
      expect(fn).toHaveBeenCalledTimes(1);
    });
  });

  describe("runTask", () => {
    it("never dispatches again after a failed wait", async () => {
      const dispatch = vi.fn(() => Promise.resolve("UPID:1"));
      const wait = vi.fn(() => Promise.reject(new TransientError("TIMEOUT", "still running")));
      await expect(runTask(dispatch, wait, { budgetMs: 60_000 })).rejects.toMatchObject({
        code: "TIMEOUT",
      });
      expect(dispatch).toHaveBeenCalledTimes(1);
      expect(wait).toHaveBeenCalledWith("UPID:1");
    });

    it("retries a transient dispatch and asks alreadyDone only before the retry", async () => {
      const dispatch = vi
        .fn<() => Promise<string>>()
        .mockRejectedValueOnce(new TransientError("TIMEOUT", "no answer"))
        .mockResolvedValueOnce("UPID:2");
      const alreadyDone = vi.fn(() => Promise.resolve(undefined));
      const wait = vi.fn((upid: string) => Promise.resolve(`waited ${upid}`));
      const result = runTask(dispatch, wait, {
        budgetMs: 60_000,
        initialDelayMs: 100,
        random: half,
        alreadyDone,
      });
      expect(alreadyDone).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(100);
      await expect(result).resolves.toBe("waited UPID:2");
      expect(alreadyDone).toHaveBeenCalledTimes(1);
      expect(dispatch).toHaveBeenCalledTimes(2);
    });

    it("returns alreadyDone's value instead of dispatching again", async () => {
      const dispatch = vi.fn(() => Promise.reject(new TransientError("TIMEOUT", "no answer")));
      const wait = vi.fn(() => Promise.resolve("waited"));
      const result = runTask(dispatch, wait, {
        budgetMs: 60_000,
        initialDelayMs: 100,
        alreadyDone: () => Promise.resolve("found VM 101"),
      });
      await vi.advanceTimersByTimeAsync(100);
      await expect(result).resolves.toBe("found VM 101");
      expect(dispatch).toHaveBeenCalledTimes(1);
      expect(wait).not.toHaveBeenCalled();
    });

    it("throws a permanent dispatch error without waiting", async () => {
      const wait = vi.fn(() => Promise.resolve("x"));
      await expect(
        runTask(() => Promise.reject(missing()), wait, { budgetMs: 1_000 }),
      ).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
      expect(wait).not.toHaveBeenCalled();
    });
  });

  describe("poll", () => {
    it("returns the first value that satisfies the condition", async () => {
      let calls = 0;
      const result = poll(
        () => Promise.resolve(++calls),
        (n) => n === 3,
        {
          budgetMs: 10_000,
          intervalMs: 1_000,
        },
      );
      await vi.advanceTimersByTimeAsync(2_000);
      await expect(result).resolves.toBe(3);
    });

    it("polls through transient errors and throws TIMEOUT with the last one as cause", async () => {
      const result = poll(
        () => Promise.reject(locked()),
        () => true,
        {
          deadline: 2_500,
          intervalMs: 1_000,
          what: "VM 100 to unlock",
        },
      );
      const settled = expect(result).rejects.toMatchObject({
        code: "TIMEOUT",
        message: "Gave up waiting for VM 100 to unlock after 3 s.",
        cause: expect.objectContaining({ code: "LOCKED" }),
      });
      await vi.advanceTimersByTimeAsync(3_000);
      await settled;
    });

    it("throws a permanent error from the polled call", async () => {
      await expect(
        poll(
          () => Promise.reject(missing()),
          () => true,
          { budgetMs: 1_000 },
        ),
      ).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
    });

    it("ends with ABORTED when the signal aborts during a wait", async () => {
      const controller = new AbortController();
      const result = poll(
        () => Promise.resolve(0),
        () => false,
        {
          budgetMs: 60_000,
          intervalMs: 5_000,
          signal: controller.signal,
        },
      );
      const settled = expect(result).rejects.toMatchObject({ code: "ABORTED" });
      await vi.advanceTimersByTimeAsync(10);
      controller.abort();
      await settled;
    });
  });
});
