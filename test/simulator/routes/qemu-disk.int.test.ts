import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
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
});
