import { describe, expect, it } from "vitest";
import { KeyedLock } from "../../../provider/pve/lock.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("lock", () => {
  it("grants one key to one holder at a time, in arrival order", async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    const releaseA = await lock.acquire("vmid");
    const b = lock.acquire("vmid").then((release) => {
      order.push("b");
      return release;
    });
    const c = lock.acquire("vmid").then((release) => {
      order.push("c");
      return release;
    });
    await tick();
    expect(order).toEqual([]);
    expect(lock.waiting("vmid")).toBe(2);
    releaseA();
    (await b)();
    (await c)();
    expect(order).toEqual(["b", "c"]);
  });

  it("does not make different keys wait for each other", async () => {
    const lock = new KeyedLock();
    await lock.acquire("vm:pve1/100");
    const other = await lock.acquire("vm:pve1/101");
    expect(typeof other).toBe("function");
    expect(lock.size).toBe(2);
  });

  it("deletes a key's entry when its queue empties", async () => {
    const lock = new KeyedLock();
    await lock.withLock("vmid", () => Promise.resolve(1));
    const release = await lock.acquire("vm:pve1/100");
    release();
    release();
    expect(lock.size).toBe(0);
    expect(lock.isLocked("vmid")).toBe(false);
  });

  it("releases the key when the function throws", async () => {
    const lock = new KeyedLock();
    await expect(lock.withLock("vmid", () => Promise.reject(new Error("boom")))).rejects.toThrow(
      "boom",
    );
    expect(lock.isLocked("vmid")).toBe(false);
  });

  it("removes an aborted waiter from the queue with ABORTED and lets the next one in", async () => {
    const lock = new KeyedLock();
    const release = await lock.acquire("vmid");
    const controller = new AbortController();
    const aborted = lock.acquire("vmid", controller.signal);
    const next = lock.acquire("vmid");
    controller.abort();
    await expect(aborted).rejects.toMatchObject({
      code: "ABORTED",
      message: 'Waiting for the in-process lock "vmid" was cancelled.',
    });
    expect(lock.waiting("vmid")).toBe(1);
    release();
    (await next)();
    expect(lock.size).toBe(0);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const lock = new KeyedLock();
    await expect(lock.acquire("vmid", AbortSignal.abort())).rejects.toMatchObject({
      code: "ABORTED",
    });
    expect(lock.size).toBe(0);
  });

  it("ignores an abort after the key was granted", async () => {
    const lock = new KeyedLock();
    const controller = new AbortController();
    const release = await lock.acquire("vmid", controller.signal);
    controller.abort();
    expect(lock.isLocked("vmid")).toBe(true);
    release();
    expect(lock.isLocked("vmid")).toBe(false);
  });
});
