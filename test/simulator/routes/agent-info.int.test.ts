import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClonedVm, guestBooted, type TestClient, until } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

beforeEach(async () => {
  ({ sim, api } = await startWithClonedVm({ guestBootMs: 100 }));
});
afterEach(async () => {
  await api.close();
  await sim.close();
});

const start = async (): Promise<void> => {
  await api.waitTask(
    "pve1",
    String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
  );
};

describe("routes/agent-info", () => {
  it("answers ping with an empty result once the agent runs, and PVE's errors before", async () => {
    // A slow agent, so the early ping lands before it answers even on a loaded machine.
    await api.close();
    await sim.close();
    ({ sim, api } = await startWithClonedVm({ guestBootMs: 100, guest: { agentDelayMs: 1000 } }));
    const stopped = await api.call("POST", "/nodes/pve1/qemu/100/agent/ping");
    expect([stopped.status, stopped.statusText]).toEqual([500, "VM 100 is not running"]);
    await start();
    const early = await api.call("POST", "/nodes/pve1/qemu/100/agent/ping");
    expect(early.statusText).toBe("QEMU guest agent is not running");
    let answer = early;
    for (let i = 0; i < 100 && answer.status !== 200; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      answer = await api.call("POST", "/nodes/pve1/qemu/100/agent/ping");
    }
    expect(answer.body).toEqual({ data: { result: {} } });
  });

  it("reports the guest's OS and its clock in nanoseconds", async () => {
    await start();
    await until(() => guestBooted(sim, 100), "the guest to boot");
    const os = data(await api.get("/nodes/pve1/qemu/100/agent/get-osinfo")) as {
      result: Record<string, unknown>;
    };
    expect(os.result).toMatchObject({ id: "debian", "version-id": "12", machine: "x86_64" });
    const before = Date.now();
    const time = data(await api.get("/nodes/pve1/qemu/100/agent/get-time")) as { result: number };
    expect(Math.abs(time.result / 1e6 - before)).toBeLessThan(1000);
  });

  it("needs VM.Monitor on the VM", async () => {
    const ro = api.withToken(
      sim.addToken("ops@pve!ro", [{ path: "/vms/100", privileges: ["VM.Audit"] }]),
    );
    const denied = await ro.call("POST", "/nodes/pve1/qemu/100/agent/ping");
    expect([denied.status, denied.statusText]).toEqual([
      403,
      "Permission check failed (/vms/100, VM.Monitor)",
    ]);
    await ro.close();
  });
});
