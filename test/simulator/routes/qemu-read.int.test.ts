import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClonedVm, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

afterEach(async () => {
  await api.close();
  await sim.close();
});

type Row = Record<string, unknown>;
const rowOf = async (path: string, vmid: number): Promise<Row | undefined> =>
  (data(await api.get(path)) as Row[]).find((row) => row["vmid"] === vmid);

describe("routes/qemu-read", () => {
  it("lists a node's VMs without QMP's fields unless full is asked for", async () => {
    ({ sim, api } = await startWithClonedVm());
    const row = await rowOf("/nodes/pve1/qemu", 100);
    expect(row).toMatchObject({ vmid: 100, name: "web", status: "stopped" });
    expect(row).not.toHaveProperty("qmpstatus");
  });

  it("adds qmpstatus with full=1, equal to status for a stopped VM", async () => {
    ({ sim, api } = await startWithClonedVm());
    expect(await rowOf("/nodes/pve1/qemu?full=1", 100)).toMatchObject({
      vmid: 100,
      status: "stopped",
      qmpstatus: "stopped",
    });
  });

  it("reports a running VM's QMP status live with full=1, as status/current does", async () => {
    ({ sim, api } = await startWithClonedVm());
    await api.waitTask(
      "pve1",
      String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
    );
    const row = await rowOf("/nodes/pve1/qemu?full=1", 100);
    const current = data(await api.get("/nodes/pve1/qemu/100/status/current")) as Row;
    expect(row).toMatchObject({ status: "running", qmpstatus: "running" });
    expect(row?.["qmpstatus"]).toBe(current["qmpstatus"]);
    expect(row).toHaveProperty("running-qemu");
    expect(row).toHaveProperty("blockstat");
  });

  it("leaves ha and agent to status/current, which adds them to the full status", async () => {
    ({ sim, api } = await startWithClonedVm());
    const row = await rowOf("/nodes/pve1/qemu?full=1", 100);
    const current = data(await api.get("/nodes/pve1/qemu/100/status/current")) as Row;
    expect(current).toMatchObject({ ha: { managed: 0 }, agent: 1 });
    expect(row).not.toHaveProperty("ha");
    expect(row).not.toHaveProperty("agent");
  });
});
