import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  watchEngine,
  type WatchedProcess,
  type WatchTimers,
} from "../../../provider/glue/engine-watch";
import { isProxmoxError } from "../../../provider/pve/errors";

/** Timers driven by hand: `advance` runs every interval tick and due timeout. */
function manualTimers() {
  let now = 0;
  const intervals: { tick: () => void; ms: number; next: number; cleared: boolean }[] = [];
  const timeouts: { fire: () => void; at: number; done: boolean }[] = [];
  const unrefs: string[] = [];
  const timers: WatchTimers = {
    setInterval: (tick, ms) => {
      const entry = { tick, ms, next: ms, cleared: false };
      intervals.push(entry);
      return Object.assign(entry, { unref: () => unrefs.push("interval") });
    },
    clearInterval: (handle) => {
      (handle as unknown as { cleared: boolean }).cleared = true;
    },
    setTimeout: (fire, ms) => {
      const entry = { fire, at: now + ms, done: false };
      timeouts.push(entry);
      return Object.assign(entry, { unref: () => unrefs.push("timeout") });
    },
  };
  const advance = (ms: number) => {
    for (const end = now + ms; now < end;) {
      now += 100;
      for (const i of intervals) {
        if (!i.cleared && now >= i.next) {
          i.next += i.ms;
          i.tick();
        }
      }
      for (const t of timeouts) {
        if (!t.done && now >= t.at) {
          t.done = true;
          t.fire();
        }
      }
    }
  };
  return { timers, advance, unrefs, intervals };
}

/** A process with real streams and listener bookkeeping, whose exit is recorded. */
function fakeProcess() {
  const events = new EventEmitter();
  const written: string[] = [];
  const stream = () => {
    const s = new PassThrough();
    s.on("data", (chunk: Buffer) => written.push(chunk.toString()));
    return s;
  };
  const exits: number[] = [];
  const proc: WatchedProcess = {
    stdout: stream(),
    stderr: stream(),
    on: (event, listener) => events.on(event, listener),
    prependListener: (event, listener) => events.prependListener(event, listener),
    removeAllListeners: (event) => events.removeAllListeners(event),
    exit: (code) => exits.push(code),
  };
  return { proc, events, written, exits };
}

function setUp(ppids: number[]) {
  const clock = manualTimers();
  const fake = fakeProcess();
  let reads = 0;
  const readPpid = () => ppids[Math.min(reads++, ppids.length - 1)] ?? 0;
  const watch = watchEngine({ readPpid, timers: clock.timers, process: fake.proc });
  return { ...clock, ...fake, watch };
}

describe("engine watch", () => {
  it("unrefs its check timer, so it never keeps a process alive by itself", () => {
    const { unrefs } = setUp([100]);
    expect(unrefs).toEqual(["interval"]);
  });

  it("does nothing while the parent pid stays the engine's", () => {
    const { advance, watch, exits } = setUp([100]);
    advance(30_000);
    expect(watch.signal.aborted).toBe(false);
    expect(exits).toEqual([]);
  });

  it("aborts the in-flight work with ABORTED when the parent pid changes, then exits", () => {
    const { advance, watch, exits, unrefs } = setUp([100, 100, 1]);
    advance(1_000);
    expect(watch.signal.aborted).toBe(false);
    advance(1_000);
    expect(watch.signal.aborted).toBe(true);
    const reason: unknown = watch.signal.reason;
    expect(isProxmoxError(reason) && reason.code).toBe("ABORTED");
    expect(watch.goneBecause).toBe("parent pid 100 became 1");
    expect(exits).toEqual([]);
    advance(2_000);
    expect(exits).toEqual([1]);
    expect(unrefs).toEqual(["interval", "timeout"]);
  });

  it("stops checking once the engine is gone and exits only once", () => {
    const { advance, exits, intervals } = setUp([100, 7]);
    advance(10_000);
    expect(intervals.every((i) => i.cleared)).toBe(true);
    expect(exits).toEqual([1]);
  });

  it("treats a failed write to stdout (EPIPE) as the engine gone", () => {
    const { proc, watch } = setUp([100]);
    proc.stdout.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    expect(watch.signal.aborted).toBe(true);
    expect(watch.goneBecause).toBe("stdout failed: EPIPE");
  });

  it("swallows every later write to stdout and stderr, so nothing is logged into the dead pipe", () => {
    const { proc, written } = setUp([100]);
    proc.stderr.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    let called = false;
    proc.stderr.write("an uncaught error's stack\n", () => (called = true));
    proc.stdout.write("a progress line\n");
    expect(written).toEqual([]);
    expect(called).toBe(true);
  });

  it("turns an uncaught EPIPE into a stop instead of a logging loop", () => {
    const { events, watch } = setUp([100]);
    const logged: unknown[] = [];
    // What Pulumi's dynamic-provider host does with every uncaught error.
    events.on("uncaughtException", (error: unknown) => logged.push(error));
    events.emit("uncaughtException", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    expect(watch.goneBecause).toBe("uncaughtException: EPIPE");
    // Once gone, later uncaught errors are neither logged nor fatal.
    events.emit("uncaughtException", new Error("another"));
    events.emit("unhandledRejection", new Error("and another"));
    expect(logged).toHaveLength(1);
  });

  it("leaves uncaught errors other than EPIPE to the host while the engine is there", () => {
    const { events, watch } = setUp([100]);
    const logged: unknown[] = [];
    events.on("uncaughtException", (error: unknown) => logged.push(error));
    events.emit("uncaughtException", new Error("a bug"));
    expect(watch.signal.aborted).toBe(false);
    expect(logged).toHaveLength(1);
  });
});
