import { describe, expect, it } from "vitest";
import { data, type TestClient } from "../support/client.js";
import { useSimulator } from "../support/use-simulator.js";

const { sim, api } = useSimulator({ clonedVm: true });

const base = "/nodes/pve1/qemu/100/snapshot";

/** Takes snapshot `name` of VM 100 (or `vmid`) and waits for the task; its final status. */
async function snapshot(
  client: TestClient,
  name: string,
  extra: Record<string, string | number> = {},
  vmid = 100,
): Promise<Record<string, unknown>> {
  const res = await client.call("POST", `/nodes/pve1/qemu/${vmid}/snapshot`, {
    snapname: name,
    ...extra,
  });
  expect(res.status, res.statusText).toBe(200);
  return client.waitTask("pve1", String(data(res)));
}

const list = async (): Promise<Record<string, unknown>[]> =>
  data(await api.get(base)) as Record<string, unknown>[];

describe("routes/qemu-snapshot", () => {
  it("takes a snapshot in a qmsnapshot task: a config section, and the VM's parent names it", async () => {
    const before = await api.vmConfig("pve1", 100);
    const done = await snapshot(api, "before-upgrade", { description: "pre 2.0" });
    expect([done["type"], done["exitstatus"]]).toEqual(["qmsnapshot", "OK"]);
    const rows = await list();
    expect(rows.map((r) => [r["name"], r["description"], r["vmstate"], r["parent"]])).toEqual([
      ["before-upgrade", "pre 2.0", 0, undefined],
      ["current", "You are here!", undefined, "before-upgrade"],
    ]);
    expect(rows[0]?.["snaptime"]).toBeGreaterThan(0);
    const section = data(await api.get(`${base}/before-upgrade/config`)) as Record<string, unknown>;
    expect(section).toMatchObject({ cores: before["cores"], scsi0: before["scsi0"] });
    expect(section["description"]).toBe("pre 2.0");
    const after = await api.vmConfig("pve1", 100);
    expect(after["parent"]).toBe("before-upgrade");
    expect(after["digest"]).not.toBe(before["digest"]);
  });

  it("chains snapshots through parent, and a description changes in place", async () => {
    await snapshot(api, "one");
    await snapshot(api, "two");
    const section = data(await api.get(`${base}/two/config`)) as Record<string, unknown>;
    expect(section["parent"]).toBe("one");
    const put = await api.call("PUT", `${base}/two/config`, { description: "second" });
    expect([put.status, data(put)]).toEqual([200, null]);
    expect((await list()).find((r) => r["name"] === "two")?.["description"]).toBe("second");
  });

  it("refuses bad and reserved names before any task, with PVE's texts", async () => {
    const bad = await api.call("POST", base, { snapname: "1st" });
    expect([bad.status, bad.body?.["errors"]]).toEqual([
      400,
      { snapname: "invalid format - invalid configuration ID '1st'" },
    ]);
    const long = await api.call("POST", base, { snapname: `a${"b".repeat(40)}` });
    expect(long.body?.["errors"]).toEqual({ snapname: "value may only be 40 characters long" });
    const current = await api.call("POST", base, { snapname: "current" });
    expect([current.status, current.statusText]).toEqual([
      500,
      "unable to use snapshot name 'current' (reserved name)",
    ]);
    const pending = await api.call("POST", base, { snapname: "Pending" });
    expect(pending.statusText).toBe("unable to use snapshot name 'pending' (reserved name)");
    const missing = await api.call("POST", "/nodes/pve1/qemu/555/snapshot", { snapname: "s1" });
    expect(missing.statusText).toBe(
      "Configuration file 'nodes/pve1/qemu-server/555.conf' does not exist",
    );
    expect(sim.model.vms.get(100)?.snapshots).toBeUndefined();
  });

  it("fails the task for a used name, a lock, and a disk whose storage cannot snapshot it", async () => {
    await snapshot(api, "s1");
    expect((await snapshot(api, "s1"))["exitstatus"]).toBe("snapshot name 's1' already used");
    sim.faults.setLock(100, "backup");
    expect((await snapshot(api, "s2"))["exitstatus"]).toBe("VM is locked (backup)");
    sim.faults.setLock(100, null);
    // A full clone onto the NFS storage is a raw file: only qcow2 files have snapshots there.
    const clone = await api.call("POST", "/nodes/pve1/qemu/9000/clone", {
      newid: 101,
      full: 1,
      storage: "shared",
    });
    await api.waitTask("pve1", String(data(clone)));
    expect((await snapshot(api, "s1", {}, 101))["exitstatus"]).toBe(
      "snapshot feature is not available",
    );
    expect(sim.model.vms.get(101)?.config["lock"]).toBeUndefined();
    expect(Object.keys(sim.model.vms.get(100)?.snapshots ?? {})).toEqual(["s1"]);
  });

  it("takes a snapshot of a disk on LVM-thin whatever its format", async () => {
    const clone = await api.call("POST", "/nodes/pve1/qemu/9000/clone", {
      newid: 102,
      full: 1,
      storage: "local-lvm",
    });
    await api.waitTask("pve1", String(data(clone)));
    expect((await snapshot(api, "thin", {}, 102))["exitstatus"]).toBe("OK");
  });

  it("saves a running VM's RAM in a state volume when asked", async () => {
    const start = await api.call("POST", "/nodes/pve1/qemu/100/status/start");
    await api.waitTask("pve1", String(data(start)));
    await snapshot(api, "warm", { vmstate: 1 });
    const row = (await list()).find((r) => r["name"] === "warm");
    expect(row?.["vmstate"]).toBe(1);
    const section = data(await api.get(`${base}/warm/config`)) as Record<string, unknown>;
    expect(section["vmstate"]).toBe("shared:vm-100-state-warm");
    const content = data(await api.get("/nodes/pve1/storage/shared/content")) as Record<
      string,
      unknown
    >[];
    expect(content.map((v) => v["volid"])).toContain("shared:vm-100-state-warm");
  });

  it("needs VM.Snapshot to take one and VM.Audit to list them", async () => {
    const token = sim.addToken("snap@pve!ro", [{ path: "/vms/100", privileges: ["VM.Audit"] }]);
    const readOnly = api.withToken(token);
    const refused = await readOnly.call("POST", base, { snapname: "nope" });
    expect([refused.status, refused.statusText]).toEqual([
      403,
      "Permission check failed (/vms/100, VM.Snapshot)",
    ]);
    expect((await readOnly.get(base)).status).toBe(200);
    await readOnly.close();
  });

  it("lets faults reach the snapshot routes like any other", async () => {
    sim.faults.failRequests({ method: "POST", path: "/qemu/100/snapshot$" }, 503, "busy");
    expect((await api.call("POST", base, { snapname: "f1" })).status).toBe(503);
    sim.faults.failTasks({ type: "qmsnapshot" }, "snapshot failed: storage error");
    expect((await snapshot(api, "f2"))["exitstatus"]).toBe("snapshot failed: storage error");
    expect(sim.model.vms.get(100)?.snapshots).toBeUndefined();
  });
});
