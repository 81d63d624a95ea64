import { describe, expect, it } from "vitest";
import { data } from "../support/client.js";
import { useSimulator } from "../support/use-simulator.js";

const { sim, api } = useSimulator({ options: { haCrmDelayMs: 100 }, clonedVm: true });

const vmStatus = async (): Promise<string> =>
  String(
    (data(await api.get("/nodes/pve1/qemu/100/status/current")) as Record<string, unknown>)[
      "status"
    ],
  );

/** Polls until the CRM has brought VM 100 to `wanted` (the CRM acts after its delay). */
async function until(wanted: string): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if ((await vmStatus()) === wanted) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`VM 100 never became ${wanted}`);
}

const powerTask = async (action: string): Promise<string> =>
  String(data(await api.call("POST", `/nodes/pve1/qemu/100/status/${action}`)));

describe("routes/ha", () => {
  it("creates, lists, reads, updates and deletes an HA resource", async () => {
    const created = await api.call("POST", "/cluster/ha/resources", {
      sid: "vm:100",
      state: "stopped",
      comment: "db",
    });
    expect(created.status).toBe(200);
    expect(data(await api.get("/cluster/ha/resources"))).toEqual([
      expect.objectContaining({ sid: "vm:100", type: "vm", state: "stopped", comment: "db" }),
    ]);
    expect(data(await api.get("/cluster/ha/resources/100"))).toMatchObject({ sid: "vm:100" });
    const again = await api.call("POST", "/cluster/ha/resources", { sid: "100" });
    expect(again.statusText).toBe("create resource failed: resource ID 'vm:100' already defined");

    await api.call("PUT", "/cluster/ha/resources/vm:100", { state: "started" });
    await until("running");
    expect(data(await api.get("/cluster/ha/status/current"))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: "service:vm:100",
          sid: "vm:100",
          node: "pve1",
          crm_state: "started",
          request_state: "started",
        }),
      ]),
    );

    expect((await api.call("DELETE", "/cluster/ha/resources/vm:100")).status).toBe(200);
    expect(data(await api.get("/cluster/ha/resources"))).toEqual([]);
    const gone = await api.call("DELETE", "/cluster/ha/resources/vm:100");
    expect(gone.statusText).toBe("resource 'vm:100' is not HA managed");
    const read = await api.get("/cluster/ha/resources/vm:100");
    expect(read.statusText).toBe("no such resource 'vm:100'");
  });

  it("refuses an HA resource for a VM that does not exist", async () => {
    const res = await api.call("POST", "/cluster/ha/resources", { sid: "vm:555" });
    expect(res.status).toBe(500);
    expect(res.statusText).toBe("resource 'vm:555' does not exist in cluster");
  });

  it("needs Sys.Console on / to change HA resources and Sys.Audit on / to list them", async () => {
    const token = sim.addToken("ops@pve!vm", [
      { path: "/vms", privileges: ["VM.Audit", "VM.PowerMgmt", "VM.Allocate"] },
    ]);
    const ops = api.withToken(token);
    const create = await ops.call("POST", "/cluster/ha/resources", { sid: "vm:100" });
    expect(create.status).toBe(403);
    expect(create.statusText).toBe("Permission check failed (/, Sys.Console)");
    const list = await ops.get("/cluster/ha/resources");
    expect(list.statusText).toBe("Permission check failed (/, Sys.Audit)");
    await ops.close();
  });

  it("answers start and stop of an HA-managed VM with hastart/hastop tasks, and the CRM does the work in tasks of its own", async () => {
    sim.faults.putUnderHa(100, "stopped");
    const start = await powerTask("start");
    expect(start).toContain(":hastart:100:");
    expect((await api.waitTask("pve1", start))["exitstatus"]).toBe("OK");
    await until("running");
    const crmTasks = (type: string) =>
      [...sim.model.tasks.values()].filter((t) => t.type === type && t.id === "100");
    expect(crmTasks("qmstart")).toEqual([expect.objectContaining({ user: "root@pam" })]);
    const rows = data(await api.get("/cluster/resources?type=vm")) as Record<string, unknown>[];
    expect(rows.find((row) => row["vmid"] === 100)).toMatchObject({ hastate: "started" });
    expect(data(await api.get("/nodes/pve1/qemu/100/status/current"))).toMatchObject({
      ha: { managed: 1, state: "started" },
    });

    const stop = await powerTask("stop");
    expect(stop).toContain(":hastop:100:");
    expect((await api.waitTask("pve1", stop))["exitstatus"]).toBe("OK");
    await until("stopped");
    expect(crmTasks("qmstop")).toEqual([expect.objectContaining({ user: "root@pam" })]);
    expect(sim.model.haResources()).toEqual([
      expect.objectContaining({ sid: "vm:100", state: "stopped" }),
    ]);
    const log = await api.get(`/nodes/pve1/tasks/${encodeURIComponent(stop)}/log`);
    expect(data(log)).toEqual(
      expect.arrayContaining([expect.objectContaining({ t: "Requesting HA stop for VM 100" })]),
    );
  });

  it("answers a shutdown of an HA-managed VM with an hastop task", async () => {
    sim.faults.putUnderHa(100);
    await until("running");
    const shutdown = await powerTask("shutdown");
    expect(shutdown).toContain(":hastop:100:");
    await until("stopped");
  });

  it("refuses to destroy a running VM, and an HA one without purge; purge removes it from HA", async () => {
    sim.faults.putUnderHa(100);
    await until("running");
    const running = await api.call("DELETE", "/nodes/pve1/qemu/100?purge=1");
    expect(running.statusText).toBe("VM 100 is running - destroy failed");

    await api.waitTask("pve1", await powerTask("stop"));
    await until("stopped");
    const noPurge = await api.call("DELETE", "/nodes/pve1/qemu/100");
    expect(noPurge.statusText).toBe(
      "unable to remove VM 100 - used in HA resources and purge parameter not set.",
    );

    const destroy = String(data(await api.call("DELETE", "/nodes/pve1/qemu/100?purge=1")));
    expect((await api.waitTask("pve1", destroy))["exitstatus"]).toBe("OK");
    expect(sim.model.vms.has(100)).toBe(false);
    expect(sim.model.haResources()).toEqual([]);
    const log = await api.get(`/nodes/pve1/tasks/${encodeURIComponent(destroy)}/log`);
    expect(data(log)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ t: "NOTE: removed VM 100 from HA resource configuration." }),
      ]),
    );
  });

  it("starts and stops an ignored HA resource directly, as an unmanaged VM", async () => {
    await api.call("POST", "/cluster/ha/resources", { sid: "vm:100", state: "ignored" });
    expect(await powerTask("start")).toContain(":qmstart:100:");
  });
});
