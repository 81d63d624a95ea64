import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, type TestClient } from "../support/client.js";
import {
  convertToTemplate,
  createFromImage,
  IMPORT_STORAGES,
  startWithImages,
  stopImageSim,
  taskLog,
  THICK_LVM,
  type ImageServer,
} from "../support/image-server.js";

let sim: Simulator;
let api: TestClient;
let images: ImageServer;

beforeEach(async () => {
  ({ sim, api, images } = await startWithImages(
    { "/debian.qcow2": Buffer.alloc(2 * 1024 * 1024, 9) },
    { storages: [...IMPORT_STORAGES, THICK_LVM] },
  ));
  await createFromImage(api, images.url, 120);
});
afterEach(() => stopImageSim({ sim, api, images }));

const config = async (vmid: number): Promise<Record<string, unknown>> =>
  data(await api.get(`/nodes/pve1/qemu/${vmid}/config`)) as Record<string, unknown>;

describe("routes/qemu-template", () => {
  it("converts a stopped VM in a qmtemplate task: template flag, disks renamed to base volumes", async () => {
    const res = await api.call("POST", "/nodes/pve1/qemu/120/template");
    const upid = String(data(res));
    expect(upid).toMatch(/:qmtemplate:120:root@pam!ci:$/);
    expect((await api.waitTask("pve1", upid))["exitstatus"]).toBe("OK");
    expect(await config(120)).toMatchObject({
      template: 1,
      scsi0: "local-lvm:base-120-disk-0,size=2M",
    });
    const listed = data(await api.get("/nodes/pve1/storage/local-lvm/content")) as Record<
      string,
      unknown
    >[];
    expect(listed.map((v) => [v["volid"], v["vmid"], v["size"]])).toEqual([
      ["local-lvm:base-120-disk-0", 120, 2 * 1024 * 1024],
    ]);
    expect(await taskLog(api, "pve1", upid)).toEqual([
      '  Renamed "vm-120-disk-0" to "base-120-disk-0" in volume group "pve"',
      "  Logical volume pve/base-120-disk-0 changed.",
      "TASK OK",
    ]);
    const row = (data(await api.get("/nodes/pve1/qemu")) as Record<string, unknown>[]).find(
      (r) => r["vmid"] === 120,
    );
    expect(row?.["template"]).toBe(1);
  });

  it("refuses a running VM, a template and a locked VM with PVE's texts, before any task", async () => {
    const start = await api.call("POST", "/nodes/pve1/qemu/120/status/start");
    await api.waitTask("pve1", String(data(start)));
    const running = await api.call("POST", "/nodes/pve1/qemu/120/template");
    expect([running.status, running.statusText]).toEqual([
      500,
      "you can't convert a VM to template if VM is running",
    ]);
    expect((await config(120))["template"]).toBeUndefined();
    expect(await convertToTemplate(api, 9000).catch((e: Error) => e.message)).toMatch(
      /you can't convert a template to a template/,
    );
    sim.faults.setLock(120, "backup");
    const locked = await api.call("POST", "/nodes/pve1/qemu/120/template");
    expect(locked.statusText).toBe("VM is locked (backup)");
    expect(sim.model.tasks.size).toBe(3);
  });

  it("needs VM.Allocate on the VM", async () => {
    const token = sim.addToken("tmpl@pve!cfg", [
      { path: "/vms/120", privileges: ["VM.Audit", "VM.Config.Options", "VM.Clone"] },
    ]);
    const res = await api.withToken(token).call("POST", "/nodes/pve1/qemu/120/template");
    expect([res.status, res.statusText]).toEqual([
      403,
      "Permission check failed (/vms/120, VM.Allocate)",
    ]);
    expect((await config(120))["template"]).toBeUndefined();
  });

  it("fails in the task on thick LVM, which has no base images, with the flag already written", async () => {
    await createFromImage(api, images.url, 130, "debian.qcow2", "thick:0");
    const status = await convertToTemplate(api, 130);
    expect(status["exitstatus"]).toBe("can't create base images in lvm storage");
    expect(await config(130)).toMatchObject({ template: 1, scsi0: "thick:vm-130-disk-0,size=2M" });
  });
});
