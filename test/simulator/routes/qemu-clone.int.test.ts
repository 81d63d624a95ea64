import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClient, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

afterEach(async () => {
  await api.close();
  await sim.close();
});

const clone = (params: Record<string, string | number>, node = "pve1", vmid = 9000) =>
  api.call("POST", `/nodes/${node}/qemu/${vmid}/clone`, params);

describe("routes/qemu-clone", () => {
  it("creates the target at once with lock clone and no name, named when the task ends", async () => {
    ({ sim, api } = await startWithClient({ taskDurationsMs: { qmclone: 3000 } }));
    const res = await clone({ newid: 101, name: "web1" });
    const upid = String(data(res));
    expect(upid).toMatch(
      /^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:qmclone:9000:root@pam!ci:$/,
    );
    await new Promise((r) => setTimeout(r, 30));
    const during = data(await api.get("/nodes/pve1/qemu/101/config")) as Record<string, unknown>;
    expect(Object.keys(during).sort()).toEqual(["description", "digest", "lock"]);
    expect(during).toMatchObject({ description: " qmclone temporary file", lock: "clone" });
    const row = (data(await api.get("/nodes/pve1/qemu")) as Record<string, unknown>[]).find(
      (r) => r["vmid"] === 101,
    );
    expect(row).toMatchObject({ name: "VM 101", lock: "clone", status: "stopped" });
    expect(sim.model.vms.get(9000)?.config["lock"]).toBeUndefined();
    expect(await api.waitTask("pve1", upid)).toMatchObject({
      status: "stopped",
      exitstatus: "OK",
      type: "qmclone",
      id: "9000",
      user: "root@pam",
      tokenid: "ci",
    });
    const after = data(await api.get("/nodes/pve1/qemu/101/config")) as Record<string, unknown>;
    expect(after["name"]).toBe("web1");
    expect(after["lock"]).toBeUndefined();
    expect(after["template"]).toBeUndefined();
    expect(after["scsi0"]).toBe("shared:base-9000-disk-0/vm-101-disk-0,size=2G");
    expect(after["net0"]).toMatch(
      /^virtio=BC:24:11:[0-9A-F]{2}:[0-9A-F]{2}:[0-9A-F]{2},bridge=vmbr0$/,
    );
    expect(after["net0"]).not.toBe(sim.model.vms.get(9000)?.config["net0"]);
  });

  it("names a clone without a name parameter Copy-of-VM-<source name>", async () => {
    ({ sim, api } = await startWithClient());
    await api.waitTask("pve1", String(data(await clone({ newid: 102 }))));
    expect(sim.model.vms.get(102)?.config["name"]).toBe("Copy-of-VM-debian-12-cloud");
  });

  it("fails with 'config file already exists' for a VMID taken on the node", async () => {
    ({ sim, api } = await startWithClient());
    await api.waitTask("pve1", String(data(await clone({ newid: 103 }))));
    const res = await clone({ newid: 103 });
    expect([res.status, res.statusText]).toEqual([
      500,
      "unable to create VM 103: config file already exists",
    ]);
  });

  it("answers 'unable to find configuration file' for a missing source", async () => {
    ({ sim, api } = await startWithClient());
    const res = await clone({ newid: 104 }, "pve2", 9000);
    expect([res.status, res.statusText]).toEqual([
      500,
      "unable to find configuration file for VM 9000 on node 'pve2'",
    ]);
  });

  it("clones to another node when the disks are on shared storage", async () => {
    ({ sim, api } = await startWithClient());
    await api.waitTask("pve1", String(data(await clone({ newid: 105, target: "pve2" }))));
    expect(sim.model.vms.get(105)?.node).toBe("pve2");
  });

  it("refuses a cross-node clone of a VM on local storage", async () => {
    ({ sim, api } = await startWithClient());
    await api.waitTask(
      "pve1",
      String(data(await clone({ newid: 106, full: 1, storage: "local-lvm" }))),
    );
    const res = await clone({ newid: 107, target: "pve2" }, "pve1", 106);
    expect([res.status, res.statusText]).toEqual([
      500,
      "can't clone VM to node 'pve2' (VM uses local storage)",
    ]);
    const bad = await clone({ newid: 108, target: "pve2", full: 1, storage: "local-lvm" });
    expect(bad.statusText).toBe("can't clone to non-shared storage 'local-lvm'");
  });

  it("refuses 'storage' and 'format' for linked clones with clone_vm's die, a 500", async () => {
    ({ sim, api } = await startWithClient());
    const res = await clone({ newid: 109, storage: "local-lvm" });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      data: null,
      message: "parameter 'storage' not allowed for linked clones\n",
    });
    const format = await clone({ newid: 109, full: 0, format: "qcow2" });
    expect(format.statusText).toBe("parameter 'format' not allowed for linked clones");
    expect(sim.model.vms.has(109)).toBe(false);
  });

  it("ends the task with PVE's lock timeout when the target flock is held", async () => {
    ({ sim, api } = await startWithClient());
    void sim.faults.holdFileLock(110, 2000);
    const upid = String(data(await clone({ newid: 110 })));
    const status = await api.waitTask("pve1", upid);
    expect(status["exitstatus"]).toBe(
      "can't lock file '/var/lock/qemu-server/lock-110.conf' - got timeout",
    );
    expect(sim.model.vms.has(110)).toBe(false);
  });

  it("answers a source under a foreign lock with 'VM is locked (<lock>)'", async () => {
    ({ sim, api } = await startWithClient());
    sim.faults.setLock(9000, "backup");
    const res = await clone({ newid: 111 });
    expect([res.status, res.statusText]).toEqual([500, "VM is locked (backup)"]);
  });

  it("answers 403 for VM.Clone, then bare for VM.Allocate on the new id", async () => {
    ({ sim, api } = await startWithClient());
    const none = api.withToken(
      sim.addToken("ops@pve!none", [{ path: "/vms/9000", privileges: ["VM.Audit"] }]),
    );
    const res = await none.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 112 });
    expect([res.status, res.statusText]).toEqual([
      403,
      "Permission check failed (/vms/9000, VM.Clone)",
    ]);
    const cloner = api.withToken(
      sim.addToken("ops@pve!clone", [{ path: "/vms/9000", privileges: ["VM.Clone"] }]),
    );
    const bare = await cloner.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 112 });
    expect([bare.status, bare.statusText]).toEqual([403, "Permission check failed"]);
    const noStorage = api.withToken(
      sim.addToken("ops@pve!vms", [{ path: "/vms", privileges: ["VM.Clone", "VM.Allocate"] }]),
    );
    const storage = await noStorage.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 112 });
    expect(storage.statusText).toBe(
      "Permission check failed (/storage/shared, Datastore.AllocateSpace)",
    );
    await Promise.all([none.close(), cloner.close(), noStorage.close()]);
  });
});
