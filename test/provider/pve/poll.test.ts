import { describe, expect, it } from "vitest";
import { growing, pollUntil, proportional } from "../../../provider/pve/poll";

/** A virtual clock: sleeping only moves time forward. */
function virtualClock() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

describe("pollUntil", () => {
  it("polls on a growing interval until an attempt answers, and returns that answer", async () => {
    const clock = virtualClock();
    let attempts = 0;
    const answer = await pollUntil({
      clock,
      budgetMs: 60_000,
      firstIntervalMs: 100,
      nextIntervalMs: growing(300),
      attempt: async () => (++attempts === 5 ? "done" : undefined),
      timedOut: () => new Error("timed out"),
    });
    expect(answer).toBe("done");
    expect(clock.sleeps).toEqual([100, 150, 225, 300]);
  });

  it("polls at a share of the time waited, within its floor and cap, when the interval is proportional", async () => {
    const clock = virtualClock();
    const attemptsAt: number[] = [];
    await pollUntil({
      clock,
      budgetMs: 60_000,
      firstIntervalMs: 250,
      nextIntervalMs: proportional(0.2, 250, 2_000),
      attempt: async (elapsed) => {
        attemptsAt.push(elapsed);
        return elapsed >= 20_000 ? "done" : undefined;
      },
      timedOut: () => new Error("timed out"),
    });
    // Every 250 ms until a fifth of the time waited is more, then growing, then every 2 s.
    expect(clock.sleeps.slice(0, 6)).toEqual([250, 250, 250, 250, 250, 250]);
    expect(clock.sleeps.filter((ms) => ms > 250 && ms < 2_000).length).toBeGreaterThan(5);
    expect(clock.sleeps.at(-1)).toBe(2_000);
    for (let i = 1; i < attemptsAt.length; i++) {
      const gap = (attemptsAt[i] ?? 0) - (attemptsAt[i - 1] ?? 0);
      const bound = Math.max(250, Math.min(2_000, (attemptsAt[i - 1] ?? 0) * 0.2));
      expect(gap).toBeCloseTo(bound, 6);
    }
  });

  it("makes no attempt during the quiet time", async () => {
    const clock = virtualClock();
    const attemptsAt: number[] = [];
    await pollUntil({
      clock,
      budgetMs: 60_000,
      quietMs: 2_000,
      firstIntervalMs: 100,
      nextIntervalMs: growing(100),
      attempt: async (elapsed) => (attemptsAt.push(elapsed) === 2 ? true : undefined),
      timedOut: () => new Error("timed out"),
    });
    expect(attemptsAt).toEqual([2_000, 2_100]);
  });

  it("reports progress before the first wait and then at most every interval given", async () => {
    const clock = virtualClock();
    const reported: number[] = [];
    await pollUntil({
      clock,
      budgetMs: 60_000,
      firstIntervalMs: 1_000,
      nextIntervalMs: () => 1_000,
      attempt: async (elapsed) => (elapsed >= 25_000 ? true : undefined),
      timedOut: () => new Error("timed out"),
      progressEveryMs: 10_000,
      progress: (elapsed) => reported.push(elapsed),
    });
    expect(reported).toEqual([0, 10_000, 20_000]);
  });

  it("throws the caller's error once the budget is spent, never sleeping past it", async () => {
    const clock = virtualClock();
    const error = await pollUntil({
      clock,
      budgetMs: 1_000,
      firstIntervalMs: 400,
      nextIntervalMs: () => 400,
      attempt: async () => undefined,
      timedOut: (elapsed) => new Error(`gave up after ${elapsed} ms`),
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe("gave up after 1000 ms");
    expect(clock.sleeps).toEqual([400, 400, 200]);
  });

  it("throws the caller's abort error when the signal aborts", async () => {
    const controller = new AbortController();
    controller.abort(new Error("engine gone"));
    const error = await pollUntil({
      clock: virtualClock(),
      signal: controller.signal,
      budgetMs: 1_000,
      firstIntervalMs: 100,
      nextIntervalMs: () => 100,
      attempt: async () => undefined,
      timedOut: () => new Error("timed out"),
      aborted: () => new Error("waiting aborted"),
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe("waiting aborted");
  });
});
