import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator, SimulatorOptions } from "../../../simulator/index.js";
import { DEFAULT_STORAGES } from "../../../simulator/model/defaults.js";
import { data, startWithClonedVm, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

beforeEach(async () => {
  ({ sim, api } = await startWithClonedVm());
});
afterEach(async () => {
  await api.close();
  await sim.close();
});

const resize = async (vmid: number, disk: string, size: string) =>
  api.waitTask(
    "pve1",
    String(data(await api.call("PUT", `/nodes/pve1/qemu/${vmid}/resize`, { disk, size }))),
  );

/** Replaces the simulator of this test by one started with `options`. */
async function restartWith(options: SimulatorOptions): Promise<void> {
  await api.close();
  await sim.close();
  ({ sim, api } = await startWithClonedVm(options));
}

/** Starts a move_disk of VM 100; its UPID. */
const moveDisk = async (params: Record<string, string | number>): Promise<string> =>
  String(data(await api.call("POST", "/nodes/pve1/qemu/100/move_disk", params)));

describe("routes/qemu-disk", () => {
  it("grows a disk in a resize task", async () => {
    expect((await resize(100, "scsi0", "+2G"))["type"]).toBe("resize");
    expect(sim.model.vms.get(100)?.config["scsi0"]).toBe(
      "shared:base-9000-disk-0/vm-100-disk-0,size=4G",
    );
    expect((await resize(100, "scsi0", "10G"))["exitstatus"]).toBe("OK");
    expect(sim.model.vms.get(100)?.config["scsi0"]).toBe(
      "shared:base-9000-disk-0/vm-100-disk-0,size=10G",
    );
  });

  it("reports resize errors in the task, even a missing VM", async () => {
    expect((await resize(100, "scsi0", "1G"))["exitstatus"]).toBe(
      "shrinking disks is not supported",
    );
    expect((await resize(100, "scsi5", "1G"))["exitstatus"]).toBe("disk 'scsi5' does not exist");
    expect((await resize(555, "scsi0", "1G"))["exitstatus"]).toBe(
      "Configuration file 'nodes/pve1/qemu-server/555.conf' does not exist",
    );
  });

  it("migrates a stopped VM to another node", async () => {
    const upid = String(
      data(await api.call("POST", "/nodes/pve1/qemu/100/migrate", { target: "pve2" })),
    );
    expect(upid).toContain(":qmigrate:100:");
    await api.waitTask("pve1", upid);
    expect(sim.model.vms.get(100)?.node).toBe("pve2");
  });

  it("refuses migration to the local node and of a running VM without online", async () => {
    const local = await api.call("POST", "/nodes/pve1/qemu/100/migrate", { target: "pve1" });
    expect(local.body?.["errors"]).toEqual({ target: "target is local node." });
    await api.waitTask(
      "pve1",
      String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
    );
    const running = await api.call("POST", "/nodes/pve1/qemu/100/migrate", { target: "pve2" });
    expect(running.statusText).toBe("can't migrate running VM without --online");
  });

  it("moves a disk to another storage in a qmmove task, keeping the old volume as unused", async () => {
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { scsi1: "local-lvm:2,ssd=1" });
    const upid = await moveDisk({ disk: "scsi1", storage: "shared" });
    expect(upid).toContain(":qmmove:100:");
    expect((await api.waitTask("pve1", upid))["exitstatus"]).toBe("OK");
    expect(sim.model.vms.get(100)?.config).toMatchObject({
      scsi1: "shared:vm-100-disk-0,size=2G,ssd=1",
      unused0: "local-lvm:vm-100-disk-0",
    });
  });

  it("frees the source volume of a move with delete=1", async () => {
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { scsi1: "local-lvm:2" });
    const upid = await moveDisk({ disk: "scsi1", storage: "shared", delete: 1 });
    await api.waitTask("pve1", upid);
    expect(sim.model.vms.get(100)?.config["unused0"]).toBeUndefined();
    expect(data(await api.get("/nodes/pve1/storage/local-lvm/content"))).toEqual([]);
  });

  it("converts a disk's format on the same storage, and needs a storage or a target VM", async () => {
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { scsi1: "shared:1" });
    await api.waitTask(
      "pve1",
      await moveDisk({ disk: "scsi1", storage: "shared", format: "qcow2" }),
    );
    expect(sim.model.vms.get(100)?.config["scsi1"]).toBe("shared:vm-100-disk-1,size=1G");
    const volumes = data(await api.get("/nodes/pve1/storage/shared/content?vmid=100")) as {
      volid: string;
      format: string;
    }[];
    expect(volumes.find((volume) => volume.volid === "shared:vm-100-disk-1")?.format).toBe("qcow2");
    const none = await api.call("POST", "/nodes/pve1/qemu/100/move_disk", { disk: "scsi1" });
    expect(none.body?.["errors"]).toEqual({ storage: "either set 'storage' or 'target-vmid'" });
  });

  it("holds the VM's lock while a move runs, so a config update waits for it", async () => {
    await restartWith({ taskDurationsMs: { qmmove: 300 } });
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { scsi1: "local-lvm:2" });
    const upid = await moveDisk({ disk: "scsi1", storage: "shared" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { description: "after" });
    const status = await api.get(`/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`);
    expect((status.body?.["data"] as Record<string, unknown>)["status"]).toBe("stopped");
  });

  it("refuses a move to the same storage, of a CD-ROM and of a missing disk, with PVE's texts", async () => {
    const move = (disk: string, storage: string) =>
      api.call("POST", "/nodes/pve1/qemu/100/move_disk", { disk, storage });
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { ide2: "none,media=cdrom" });
    expect((await move("scsi0", "shared")).statusText).toBe(
      "you can't move to the same storage with same format",
    );
    expect((await move("ide2", "local-lvm")).statusText).toBe("you can't move a cdrom");
    expect((await move("scsi9", "local-lvm")).statusText).toBe("disk 'scsi9' does not exist");
    expect((await move("scsi0", "nowhere")).statusText).toBe("storage 'nowhere' does not exist");
    expect((await move("scsi0", "local")).statusText).toBe(
      "storage 'local' does not support vm images",
    );
  });

  it("migrates local disks offline with with-local-disks, onto targetstorage", async () => {
    await restartWith({
      storages: [
        ...DEFAULT_STORAGES,
        { storage: "fast", type: "zfspool", content: ["images"], shared: false, nodes: ["pve2"] },
      ],
    });
    await api.call("PUT", "/nodes/pve1/qemu/100/config", {
      scsi1: "local-lvm:2",
      virtio1: "local-lvm:1",
    });
    const elsewhere = await api.call("POST", "/nodes/pve1/qemu/100/move_disk", {
      disk: "scsi1",
      storage: "fast",
    });
    expect(elsewhere.statusText).toBe("storage 'fast' is not available on node 'pve1'");
    const refused = await api.call("POST", "/nodes/pve1/qemu/100/migrate", { target: "pve2" });
    expect(refused.statusText).toBe(
      "can't migrate local disk 'local-lvm:vm-100-disk-0': please use --with-local-disks",
    );
    const upid = String(
      data(
        await api.call("POST", "/nodes/pve1/qemu/100/migrate", {
          target: "pve2",
          "with-local-disks": 1,
          targetstorage: "local-lvm:fast",
        }),
      ),
    );
    expect((await api.waitTask("pve1", upid))["exitstatus"]).toBe("OK");
    expect(sim.model.vms.get(100)?.config).toMatchObject({
      scsi0: "shared:base-9000-disk-0/vm-100-disk-0,size=2G",
      scsi1: "fast:vm-100-disk-0,size=2G",
      virtio1: "fast:vm-100-disk-1,size=1G",
    });
    const onTarget = data(await api.get("/nodes/pve2/storage/fast/content")) as { volid: string }[];
    expect(onTarget.map((volume) => volume.volid)).toEqual([
      "fast:vm-100-disk-0",
      "fast:vm-100-disk-1",
    ]);
    expect(data(await api.get("/nodes/pve1/storage/local-lvm/content"))).toEqual([]);
  });

  it("refuses a targetstorage missing on the target node and one that does not parse", async () => {
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { scsi1: "local-lvm:2" });
    const migrate = (targetstorage: string) =>
      api.call("POST", "/nodes/pve1/qemu/100/migrate", {
        target: "pve2",
        "with-local-disks": 1,
        targetstorage,
      });
    expect((await migrate("local")).statusText).toBe("storage 'local' does not support vm images");
    expect((await migrate("1,local-lvm")).body?.["errors"]).toEqual({
      targetstorage:
        "failed to parse storage map: identity mapping cannot be combined with other mappings",
    });
    expect(sim.model.vms.get(100)?.node).toBe("pve1");
  });
});
