import { describe, expect, it } from "vitest";
import { NodeSlots } from "../../../provider/pve/node-slots.js";

/** A task the test ends by hand, recording when it started. */
function task(started: string[], name: string) {
  let end: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (end = resolve));
  return {
    run: async () => {
      started.push(name);
      await done;
      return name;
    },
    end: () => end(),
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("node-slots", () => {
  it("runs at most the limit of tasks per node, the next in arrival order", async () => {
    const slots = new NodeSlots(2);
    const started: string[] = [];
    const tasks = ["a", "b", "c", "d"].map((name) => task(started, name));
    const results = tasks.map((t) => slots.run("pve1", t.run));
    await flush();
    expect(started).toEqual(["a", "b"]);
    tasks[1]?.end();
    await flush();
    expect(started).toEqual(["a", "b", "c"]);
    expect(slots.busy("pve1")).toBe(2);
    for (const t of tasks) t.end();
    expect(await Promise.all(results)).toEqual(["a", "b", "c", "d"]);
    expect(slots.busy("pve1")).toBe(0);
  });

  it("tells only a task that must queue when its wait begins and when it ends", async () => {
    const slots = new NodeSlots(1);
    const started: string[] = [];
    const events: string[] = [];
    const queued = (name: string) => () => {
      events.push(`${name} queued`);
      return () => void events.push(`${name} granted`);
    };
    const first = task(started, "a");
    const second = task(started, "b");
    const runs = [
      slots.run("pve1", first.run, queued("a")),
      slots.run("pve1", second.run, queued("b")),
    ];
    await flush();
    expect(events).toEqual(["b queued"]);
    first.end();
    await flush();
    expect(events).toEqual(["b queued", "b granted"]);
    expect(started).toEqual(["a", "b"]);
    second.end();
    await Promise.all(runs);
  });

  it("bounds each node on its own, never the process as a whole", async () => {
    const slots = new NodeSlots(1);
    const started: string[] = [];
    const one = task(started, "pve1");
    const two = task(started, "pve2");
    const runs = [slots.run("pve1", one.run), slots.run("pve2", two.run)];
    await flush();
    expect(started).toEqual(["pve1", "pve2"]);
    one.end();
    two.end();
    await Promise.all(runs);
  });

  it("frees the slot of a task that failed", async () => {
    const slots = new NodeSlots(1);
    await expect(
      slots.run("pve1", () => Promise.reject(new Error("clone failed"))),
    ).rejects.toThrow("clone failed");
    expect(slots.busy("pve1")).toBe(0);
    expect(await slots.run("pve1", () => Promise.resolve("next"))).toBe("next");
  });

  it("runs everything at once without a limit", async () => {
    const slots = new NodeSlots(undefined);
    const started: string[] = [];
    const tasks = Array.from({ length: 50 }, (_, i) => task(started, String(i)));
    const runs = tasks.map((t) => slots.run("pve1", t.run));
    await flush();
    expect(started).toHaveLength(50);
    for (const t of tasks) t.end();
    await Promise.all(runs);
  });
});
