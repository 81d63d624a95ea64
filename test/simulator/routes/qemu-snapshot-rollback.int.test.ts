import { describe, expect, it } from "vitest";
import { DEFAULT_STORAGES } from "../../../simulator/model/defaults.js";
import type { Simulator } from "../../../simulator/index.js";
import { data, guestBooted, until, type TestClient } from "../support/client.js";
import { useSimulator } from "../support/use-simulator.js";

const snap = "/nodes/pve1/qemu/100/snapshot";

/** Sends a request that answers with a UPID and waits for its task; the final status. */
async function task(
  api: TestClient,
  method: string,
  path: string,
  params?: Record<string, string | number>,
): Promise<Record<string, unknown>> {
  const res = await api.call(method, path, params);
  expect(res.status, res.statusText).toBe(200);
  return api.waitTask("pve1", String(data(res)));
}

const take = (api: TestClient, name: string, vmid = 100) =>
  task(api, "POST", `/nodes/pve1/qemu/${vmid}/snapshot`, { snapname: name });
const rollback = (api: TestClient, name: string, extra: Record<string, number> = {}) =>
  task(api, "POST", `${snap}/${name}/rollback`, extra);
const remove = (api: TestClient, name: string) => task(api, "DELETE", `${snap}/${name}`);
const start = (api: TestClient) => task(api, "POST", "/nodes/pve1/qemu/100/status/start");

/** The config lock values seen while the task `upid` ran, sampled from the model. */
async function locksDuring(sim: Simulator, upid: string): Promise<Set<unknown>> {
  const seen = new Set<unknown>();
  await until(() => {
    seen.add(sim.model.vms.get(100)?.config["lock"]);
    return sim.model.tasks.get(upid)?.status === "stopped";
  }, `task ${upid}`);
  return seen;
}

describe("routes/qemu-snapshot-rollback", () => {
  const { sim, api } = useSimulator({ clonedVm: true });

  it("rolls back config and disk sizes; a disk added since is kept as unused", async () => {
    await take(api, "before");
    await api.putConfig("pve1", 100, { cores: 6, scsi1: "local-lvm:1" });
    await task(api, "PUT", "/nodes/pve1/qemu/100/resize", { disk: "scsi0", size: "5G" });
    const done = await rollback(api, "before");
    expect([done["type"], done["exitstatus"]]).toEqual(["qmrollback", "OK"]);
    const config = await api.vmConfig("pve1", 100);
    expect(config).toMatchObject({
      cores: 2,
      scsi0: "shared:base-9000-disk-0/vm-100-disk-0,size=2G",
      unused0: "local-lvm:vm-100-disk-0",
      parent: "before",
    });
    expect(config["scsi1"]).toBeUndefined();
    const volume = sim.model
      .volumes("pve1", "shared")
      .find((v) => v.volid === "shared:base-9000-disk-0/vm-100-disk-0");
    expect(volume?.size).toBe(2 * 1024 ** 3);
  });

  it("stops a running VM for the rollback, and starts it again with start=1", async () => {
    await take(api, "cold");
    await start(api);
    expect((await rollback(api, "cold"))["exitstatus"]).toBe("OK");
    expect(sim.model.vms.get(100)?.status).toBe("stopped");
    expect((await rollback(api, "cold", { start: 1 }))["exitstatus"]).toBe("OK");
    expect(sim.model.vms.get(100)?.status).toBe("running");
    await until(() => guestBooted(sim, 100), "the guest to boot from the rolled-back disks");
  });

  it("resumes a snapshot that saved the RAM", async () => {
    await start(api);
    await task(api, "POST", snap, { snapname: "warm", vmstate: 1 });
    await task(api, "POST", "/nodes/pve1/qemu/100/status/stop");
    expect((await rollback(api, "warm"))["exitstatus"]).toBe("OK");
    expect(sim.model.vms.get(100)?.status).toBe("running");
  });

  it("fails the task for a missing snapshot and a locked VM", async () => {
    expect((await rollback(api, "nope"))["exitstatus"]).toBe("snapshot 'nope' does not exist");
    await take(api, "s1");
    sim.faults.setLock(100, "backup");
    expect((await rollback(api, "s1"))["exitstatus"]).toBe("VM is locked (backup)");
    expect((await remove(api, "s1"))["exitstatus"]).toBe("VM is locked (backup)");
    sim.faults.setLock(100, null);
    expect((await remove(api, "nope"))["exitstatus"]).toBe("snapshot 'nope' does not exist");
  });

  it("deletes a snapshot: its children and the VM take its parent", async () => {
    await take(api, "one");
    await take(api, "two");
    await take(api, "three");
    expect((await remove(api, "two"))["type"]).toBe("qmdelsnapshot");
    const vm = sim.model.vms.get(100);
    expect(Object.keys(vm?.snapshots ?? {})).toEqual(["one", "three"]);
    expect(vm?.snapshots?.["three"]?.config["parent"]).toBe("one");
    await remove(api, "three");
    expect(vm?.config["parent"]).toBe("one");
    await remove(api, "one");
    expect(vm?.config["parent"]).toBeUndefined();
    expect(vm?.snapshots).toBeUndefined();
  });

  it("deletes the RAM state volume with its snapshot", async () => {
    await start(api);
    await task(api, "POST", snap, { snapname: "warm", vmstate: 1 });
    const stateVolumes = () =>
      sim.model.volumes("pve1", "shared").filter((v) => v.volid === "shared:vm-100-state-warm");
    expect(stateVolumes()).toHaveLength(1);
    await remove(api, "warm");
    expect(stateVolumes()).toEqual([]);
  });

  it("refuses to move a disk a snapshot holds and delete its source", async () => {
    await take(api, "s1");
    const moved = await api.call("POST", "/nodes/pve1/qemu/100/move_disk", {
      disk: "scsi0",
      storage: "local-lvm",
      delete: 1,
    });
    expect([moved.status, moved.statusText]).toEqual([
      500,
      "you can't move a disk with snapshots and delete the source",
    ]);
  });

  it("grows a qcow2 disk that has snapshots (qemu-server 8.0.2 and later)", async () => {
    await take(api, "s1");
    const grown = await task(api, "PUT", "/nodes/pve1/qemu/100/resize", {
      disk: "scsi0",
      size: "+1G",
    });
    expect(grown["exitstatus"]).toBe("OK");
  });

  it("destroys a VM with its snapshots and their state volumes", async () => {
    await start(api);
    await task(api, "POST", snap, { snapname: "warm", vmstate: 1 });
    await take(api, "s2");
    await task(api, "POST", "/nodes/pve1/qemu/100/status/stop");
    expect((await task(api, "DELETE", "/nodes/pve1/qemu/100"))["exitstatus"]).toBe("OK");
    expect(sim.model.vms.has(100)).toBe(false);
    const left = ["shared", "local-lvm"].flatMap((storage) => sim.model.volumes("pve1", storage));
    expect(left.filter((v) => v.vmid === 100)).toEqual([]);
  });

  it("rolls back with VM.Snapshot.Rollback alone, and needs one of the two", async () => {
    await take(api, "s1");
    const rollbackOnly = sim.addToken("rb@pve!only", [
      { path: "/vms/100", privileges: ["VM.Snapshot.Rollback"] },
    ]);
    const client = api.withToken(rollbackOnly);
    expect((await rollback(client, "s1"))["exitstatus"]).toBe("OK");
    const denied = await client.call("DELETE", `${snap}/s1`);
    expect(denied.statusText).toBe("Permission check failed (/vms/100, VM.Snapshot)");
    const audit = sim.addToken("rb@pve!audit", [{ path: "/vms/100", privileges: ["VM.Audit"] }]);
    const refused = await api.withToken(audit).call("POST", `${snap}/s1/rollback`);
    expect(refused.statusText).toBe(
      "Permission check failed (/vms/100, VM.Snapshot|VM.Snapshot.Rollback)",
    );
    await client.close();
  });
});

describe("routes/qemu-snapshot-rollback locks", () => {
  const { sim, api } = useSimulator({
    clonedVm: true,
    options: { taskDurationsMs: { qmsnapshot: 300, qmrollback: 300, qmdelsnapshot: 300 } },
  });

  it("holds the snapshot, rollback and snapshot-delete locks while each task runs", async () => {
    const upid = async (method: string, path: string, params?: Record<string, string>) =>
      String(data(await api.call(method, path, params)));
    const taking = await upid("POST", snap, { snapname: "s1" });
    expect(await locksDuring(sim, taking)).toContain("snapshot");
    const rolling = await upid("POST", `${snap}/s1/rollback`);
    expect(await locksDuring(sim, rolling)).toContain("rollback");
    const deleting = await upid("DELETE", `${snap}/s1`);
    expect(await locksDuring(sim, deleting)).toContain("snapshot-delete");
    expect(sim.model.vms.get(100)?.config["lock"]).toBeUndefined();
  });
});

describe("routes/qemu-snapshot-rollback on PVE 7.4", () => {
  const { api } = useSimulator({ clonedVm: true, options: { pveVersion: "7.4" } });

  it("refuses to grow a qcow2 disk while snapshots exist", async () => {
    await take(api, "s1");
    const res = await api.call("PUT", "/nodes/pve1/qemu/100/resize", {
      disk: "scsi0",
      size: "+1G",
    });
    expect([res.status, res.statusText]).toEqual([
      500,
      "can't resize volume: scsi0 if snapshot exists",
    ]);
  });
});

describe("routes/qemu-snapshot-rollback on ZFS", () => {
  const tank = { storage: "tank", type: "zfspool", content: ["images"], shared: false };
  const { api } = useSimulator({ options: { storages: [...DEFAULT_STORAGES, tank] } });

  it("rolls back only to the most recent snapshot of a ZFS disk", async () => {
    const clone = await api.call("POST", "/nodes/pve1/qemu/9000/clone", {
      newid: 100,
      full: 1,
      storage: "tank",
    });
    await api.waitTask("pve1", String(data(clone)));
    await take(api, "first");
    await take(api, "second");
    expect((await rollback(api, "first"))["exitstatus"]).toBe(
      "can't rollback, more recent snapshots exist",
    );
    expect((await rollback(api, "second"))["exitstatus"]).toBe("OK");
  });
});
