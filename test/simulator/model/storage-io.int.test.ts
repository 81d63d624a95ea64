import { afterEach, describe, expect, it } from "vitest";
import type { Simulator, SimulatorOptions } from "../../../simulator/index.js";
import { data, startWithClient, type TestClient } from "../support/client.js";

let started: { sim: Simulator; api: TestClient } | undefined;
afterEach(async () => {
  await started?.api.close();
  await started?.sim.close();
  started = undefined;
});

async function start(options: SimulatorOptions) {
  started = await startWithClient(options);
  return started.api;
}

/** Clones template 9000 (a 2 GiB disk on the shared storage) and waits for the task. */
async function clone(api: TestClient, newid: number, full: boolean, storage?: string) {
  const params = { newid, full: full ? 1 : 0, ...(storage === undefined ? {} : { storage }) };
  const began = Date.now();
  const upid = String(data(await api.call("POST", "/nodes/pve1/qemu/9000/clone", params)));
  for (;;) {
    const status = data(await api.get(`/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`)) as {
      status: string;
      exitstatus?: string;
    };
    // Wall time from the POST to the poll that saw the end: never less than the task ran.
    if (status.status === "stopped") return { ...status, seconds: (Date.now() - began) / 1000 };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("storage bandwidth", () => {
  it("makes concurrent full clones to one storage share its bandwidth", async () => {
    const api = await start({ storageBandwidthMiBps: { shared: 1024 } });
    // 2 GiB at 1024 MiB/s: 2 s alone, 6 s each when three copy at once.
    const alone = await clone(api, 100, true);
    const together = await Promise.all([
      clone(api, 101, true),
      clone(api, 102, true),
      clone(api, 103, true),
    ]);
    expect(alone).toMatchObject({ exitstatus: "OK" });
    expect(alone.seconds).toBeGreaterThanOrEqual(1.9);
    for (const task of together) {
      expect(task.exitstatus).toBe("OK");
      expect(task.seconds).toBeGreaterThanOrEqual(5.9);
    }
  }, 60_000);

  it("copies nothing for a linked clone, however slow the storage", async () => {
    const api = await start({ storageBandwidthMiBps: { shared: 1 } });
    // A copy of 2 GiB at 1 MiB/s would take half an hour.
    const linked = await clone(api, 100, false);
    expect(linked.exitstatus).toBe("OK");
    expect(linked.seconds).toBeLessThanOrEqual(3);
  });

  it("keeps the task's fixed duration on a storage without a bandwidth (the default)", async () => {
    const api = await start({ defaultTaskMs: 20 });
    const full = await clone(api, 100, true);
    expect([full.exitstatus, full.seconds <= 1]).toEqual(["OK", true]);
  });
});

describe("the storage allocation lock", () => {
  it("fails an allocation that waits past PVE's 10 s with the cluster lock's text", async () => {
    const api = await start({ storageAllocMs: 5_100 });
    const tasks = await Promise.all([
      clone(api, 100, true),
      clone(api, 101, true),
      clone(api, 102, true),
    ]);
    const outcomes = tasks.map((t) => t.exitstatus).sort();
    expect(outcomes).toEqual([
      "OK",
      "OK",
      "cfs-lock 'storage-shared' error: got lock request timeout",
    ]);
  }, 60_000);

  it("names the node's file lock for a storage that is not shared", async () => {
    const api = await start({ storageAllocMs: 5_100 });
    const tasks = await Promise.all([100, 101, 102].map((id) => clone(api, id, true, "local-lvm")));
    expect(tasks.map((t) => t.exitstatus).sort()).toEqual([
      "OK",
      "OK",
      "can't lock file '/var/lock/pve-manager/pve-storage-local-lvm' - got timeout",
    ]);
  }, 60_000);
});
