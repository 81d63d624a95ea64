import { describe, expect, it } from "vitest";
import { abortedError, backoffDelay, systemClock } from "../../../provider/pve/retry.js";

describe("retry", () => {
  describe("backoffDelay", () => {
    it("doubles from the initial delay up to the cap, with equal jitter", () => {
      const options = { initialDelayMs: 100, maxDelayMs: 1_000 };
      expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, { ...options, random: () => 0 }))).toEqual([
        50, 100, 200, 400, 500,
      ]);
      expect(backoffDelay(5, { ...options, random: () => 0.999999 })).toBe(1_000);
    });

    it("spreads two retries of the same attempt over the upper half of the delay", () => {
      const options = { initialDelayMs: 1_000, maxDelayMs: 8_000 };
      expect(backoffDelay(1, { ...options, random: () => 0.2 })).toBe(600);
      expect(backoffDelay(1, { ...options, random: () => 0.8 })).toBe(900);
    });
  });

  describe("systemClock", () => {
    it("rejects a sleep at once when its signal already aborted", async () => {
      const controller = new AbortController();
      controller.abort(new Error("stop"));
      await expect(systemClock.sleep(60_000, controller.signal)).rejects.toThrow("stop");
    });

    it("rejects a pending sleep when its signal aborts", async () => {
      const controller = new AbortController();
      const sleeping = systemClock.sleep(60_000, controller.signal);
      controller.abort(new Error("cancelled"));
      await expect(sleeping).rejects.toThrow("cancelled");
    });
  });

  describe("abortedError", () => {
    it("is a permanent ABORTED error naming what was cancelled", () => {
      const error = abortedError("The retry wait");
      expect(error).toMatchObject({ code: "ABORTED", transient: false });
      expect(error.message).toBe("The retry wait was cancelled.");
    });
  });
});
