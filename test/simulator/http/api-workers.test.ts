import { describe, expect, it } from "vitest";
import { ApiWorkers, jittered, NodeWorkers } from "../../../simulator/http/api-workers";

/** A piece of work that runs until the test lets it finish. */
function held(): { promise: Promise<void>; finish: () => void } {
  let finish = (): void => undefined;
  const promise = new Promise<void>((resolve) => (finish = resolve));
  return { promise, finish };
}

describe("ApiWorkers", () => {
  it("runs at most `size` pieces of work at once and queues the rest in arrival order", async () => {
    const workers = new ApiWorkers(2);
    const started: number[] = [];
    const gates = [held(), held(), held(), held()];
    const runs = gates.map((gate, i) =>
      workers.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(workers.queued).toBe(2);
    gates[1]?.finish();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    for (const gate of gates) gate.finish();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(workers.queued).toBe(0);
  });

  it("frees the worker of a piece of work that throws", async () => {
    const workers = new ApiWorkers(1);
    await expect(workers.run(() => Promise.reject(new Error("handler failed")))).rejects.toThrow(
      "handler failed",
    );
    expect(await workers.run(() => "next")).toBe("next");
  });

  it("refuses a size below one", () => {
    expect(() => new NodeWorkers(0)).toThrow("apiWorkers must be a whole number of at least 1");
  });

  it("keeps one pool per node", async () => {
    const nodes = new NodeWorkers(1);
    const gate = held();
    const busy = nodes.of("pve1").run(() => gate.promise);
    expect(await nodes.of("pve2").run(() => "pve2 served")).toBe("pve2 served");
    expect(nodes.of("pve1")).toBe(nodes.of("pve1"));
    gate.finish();
    await busy;
  });
});

describe("jittered", () => {
  it("draws from base × (1 ± jitter)", () => {
    expect(jittered(1000, 0.3, () => 0)).toBe(700);
    expect(jittered(1000, 0.3, () => 1)).toBe(1300);
    expect(jittered(1000, 0.3, () => 0.5)).toBe(1000);
  });

  it("gives the base itself without jitter", () => {
    expect(jittered(1000, 0, () => 0)).toBe(1000);
  });
});
