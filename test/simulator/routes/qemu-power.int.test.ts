import { describe, expect, it } from "vitest";
import { data, startWithClient, until } from "../support/client.js";
import { useSimulator } from "../support/use-simulator.js";

const { sim, api } = useSimulator({ clonedVm: true });

const post = async (path: string, params?: Record<string, string | number>) =>
  api.waitTask("pve1", String(data(await api.call("POST", `/nodes/pve1/qemu${path}`, params))));

describe("routes/qemu-power", () => {
  it("starts and stops a VM through qmstart/qmstop tasks", async () => {
    expect((await post("/100/status/start"))["exitstatus"]).toBe("OK");
    expect(data(await api.get("/nodes/pve1/qemu/100/status/current"))).toMatchObject({
      status: "running",
      qmpstatus: "running",
      agent: 1,
      ha: { managed: 0 },
    });
    expect((await post("/100/status/start"))["exitstatus"]).toBe("VM 100 already running");
    expect((await post("/100/status/stop"))["exitstatus"]).toBe("OK");
    expect(data(await api.get("/nodes/pve1/qemu/100/status/current"))).toMatchObject({
      status: "stopped",
      qmpstatus: "stopped",
    });
    expect((await post("/100/status/stop"))["exitstatus"]).toBe("OK");
  });

  it("reports a missing VM in the start and stop tasks with their different wordings", async () => {
    expect((await post("/555/status/start"))["exitstatus"]).toBe(
      "Configuration file 'nodes/pve1/qemu-server/555.conf' does not exist",
    );
    expect((await post("/555/status/stop"))["exitstatus"]).toBe(
      "unable to find configuration file for VM 555 on node 'pve1'",
    );
    const reboot = await api.call("POST", "/nodes/pve1/qemu/555/status/reboot");
    expect(reboot.statusText).toBe("unable to find configuration file for VM 555 on node 'pve1'");
  });

  it("refuses to start a template and a VM whose ISO is gone", async () => {
    expect((await post("/9000/status/start"))["exitstatus"]).toBe(
      "you can't start a vm if it's a template",
    );
    // An ISO deleted after it was attached (a config write refuses a missing volume).
    const vm = sim.model.vms.get(100);
    if (vm !== undefined) vm.config["ide2"] = "local:iso/gone.iso,media=cdrom";
    expect((await post("/100/status/start"))["exitstatus"]).toBe(
      "volume 'local:iso/gone.iso' does not exist",
    );
  });

  it("reboots via a qmreboot task followed by a separate start task", async () => {
    await post("/100/status/start");
    const notRunning = await api.call("POST", "/nodes/pve1/qemu/9000/status/reboot");
    expect(notRunning.statusText).toBe("VM 9000 not running");
    expect((await post("/100/status/reboot"))["exitstatus"]).toBe("OK");
    const starts = () =>
      [...sim.model.tasks.values()].filter((t) => t.type === "qmstart" && t.id === "100");
    await until(
      () => starts().length === 2 && starts().every((t) => t.status === "stopped"),
      "the start after the reboot",
    );
    expect(starts().map((t) => t.user)).toEqual(["root@pam!ci", "root@pam"]);
    expect(sim.model.vms.get(100)?.status).toBe("running");
  });

  it("destroys a VM: running refused sync, locked fails in the task", async () => {
    await post("/100/status/start");
    const running = await api.call("DELETE", "/nodes/pve1/qemu/100");
    expect([running.status, running.statusText]).toEqual([
      500,
      "VM 100 is running - destroy failed",
    ]);
    await post("/100/status/stop");
    sim.faults.setLock(100, "backup");
    const locked = String(data(await api.call("DELETE", "/nodes/pve1/qemu/100?purge=1")));
    expect(locked).toContain(":qmdestroy:100:");
    expect((await api.waitTask("pve1", locked))["exitstatus"]).toBe("VM is locked (backup)");
    sim.faults.setLock(100, null);
    const ok = String(
      data(await api.call("DELETE", "/nodes/pve1/qemu/100?purge=1&destroy-unreferenced-disks=1")),
    );
    expect((await api.waitTask("pve1", ok))["exitstatus"]).toBe("OK");
    expect(sim.model.vms.has(100)).toBe(false);
    expect(sim.model.volumes("pve1", "shared").map((v) => v.volid)).toEqual([
      "shared:base-9000-disk-0",
      "shared:base-9001-disk-0",
    ]);
  });

  it("shows the zombie 'lock: destroyed' config while a destroy runs", async () => {
    // The zombie stands for the second half of the task: 2 s, far above scheduling noise.
    const slow = await startWithClient({ taskDurationsMs: { qmdestroy: 4000 } });
    const upid = String(data(await slow.api.call("DELETE", "/nodes/pve2/qemu/9001")));
    const seen: unknown[] = [];
    for (let i = 0; i < 80 && !seen.includes("destroyed"); i += 1) {
      const config = data(await slow.api.get("/nodes/pve2/qemu/9001/config")) as { lock?: string };
      seen.push(config.lock ?? "none");
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen.at(-1)).toBe("destroyed");
    await slow.api.waitTask("pve2", upid);
    expect((await slow.api.get("/nodes/pve2/qemu/9001/config")).status).toBe(500);
    await slow.api.close();
    await slow.sim.close();
  });

  it("answers 403 without VM.PowerMgmt", async () => {
    const token = api.withToken(
      sim.addToken("ops@pve!ro", [{ path: "/vms", privileges: ["VM.Audit"] }]),
    );
    const res = await token.call("POST", "/nodes/pve1/qemu/100/status/start");
    expect([res.status, res.statusText]).toEqual([
      403,
      "Permission check failed (/vms/100, VM.PowerMgmt)",
    ]);
    await token.close();
  });

  it("lets faults fail a task or end it with warnings", async () => {
    sim.faults.failTasks({ type: "qmstart" }, "start failed: QEMU exited with code 1");
    expect((await post("/100/status/start"))["exitstatus"]).toBe(
      "start failed: QEMU exited with code 1",
    );
    expect(sim.model.vms.get(100)?.status).toBe("stopped");
    sim.faults.warnTasks({ type: "qmstart", id: "100" }, 2);
    const upid = String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start")));
    expect((await api.waitTask("pve1", upid))["exitstatus"]).toBe("WARNINGS: 2");
    const log = data(await api.get(`/nodes/pve1/tasks/${encodeURIComponent(upid)}/log`)) as {
      t: string;
    }[];
    expect(log.map((l) => l.t)).toEqual([
      "WARN: simulated warning",
      "WARN: simulated warning",
      "TASK WARNINGS: 2",
    ]);
  });

  it("changes a VM out of band: stop, migrate, delete", async () => {
    await post("/100/status/start");
    sim.faults.stopVm(100);
    expect(data(await api.get("/nodes/pve1/qemu/100/status/current"))).toMatchObject({
      status: "stopped",
    });
    sim.faults.migrateVm(100, "pve2");
    expect((await api.get("/nodes/pve1/qemu/100/config")).status).toBe(500);
    expect((await api.get("/nodes/pve2/qemu/100/config")).status).toBe(200);
    sim.faults.deleteVm(100);
    expect(sim.model.vms.has(100)).toBe(false);
  });
});
