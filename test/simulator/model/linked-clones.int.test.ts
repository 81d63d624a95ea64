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
    { "/debian.qcow2": Buffer.alloc(1024 * 1024, 1) },
    {
      storages: [...IMPORT_STORAGES, THICK_LVM],
      templates: [
        {
          vmid: 8000,
          node: "pve1",
          config: { name: "on-thick-lvm", template: 1, scsi0: "thick:base-8000-disk-0,size=1G" },
        },
      ],
    },
  ));
  await createFromImage(api, images.url, 120);
  expect((await convertToTemplate(api, 120))["exitstatus"]).toBe("OK");
});
afterEach(() => stopImageSim({ sim, api, images }));

async function run(method: string, path: string, params?: Record<string, string | number>) {
  const res = await api.call(method, path, params);
  const upid = String(data(res));
  if (!upid.startsWith("UPID:")) return { exitstatus: res.statusText, upid: "" };
  return { exitstatus: (await api.waitTask("pve1", upid))["exitstatus"], upid };
}
const volids = async (storage: string): Promise<unknown[]> =>
  (data(await api.get(`/nodes/pve1/storage/${storage}/content`)) as { volid: string }[]).map(
    (v) => v.volid,
  );

describe("model/linked-clones", () => {
  it("gives a linked clone a disk on the template's base volume, listed beside it", async () => {
    expect((await run("POST", "/nodes/pve1/qemu/120/clone", { newid: 121 })).exitstatus).toBe("OK");
    const config = data(await api.get("/nodes/pve1/qemu/121/config")) as Record<string, unknown>;
    expect(config["scsi0"]).toBe("local-lvm:base-120-disk-0/vm-121-disk-0,size=1M");
    expect(await volids("local-lvm")).toEqual([
      "local-lvm:base-120-disk-0",
      "local-lvm:base-120-disk-0/vm-121-disk-0",
    ]);
  });

  it("refuses to destroy a template whose base volume has linked clones, naming the volume", async () => {
    await run("POST", "/nodes/pve1/qemu/120/clone", { newid: 121 });
    await run("POST", "/nodes/pve1/qemu/120/clone", { newid: 122, full: 1 });
    const refused = await run("DELETE", "/nodes/pve1/qemu/120");
    expect(refused.exitstatus).toBe(
      "base volume 'local-lvm:base-120-disk-0' is still in use by linked cloned",
    );
    expect(sim.model.vms.get(120)?.config["template"]).toBe(1);
    expect(await volids("local-lvm")).toContain("local-lvm:base-120-disk-0");
    expect((await run("DELETE", "/nodes/pve1/qemu/121")).exitstatus).toBe("OK");
    expect((await run("DELETE", "/nodes/pve1/qemu/120")).exitstatus).toBe("OK");
    expect(await volids("local-lvm")).toEqual(["local-lvm:vm-122-disk-0"]);
    expect(sim.model.vms.has(122)).toBe(true);
  });

  it("refuses to migrate a linked clone on local storage; the clone stays, unlocked", async () => {
    await run("POST", "/nodes/pve1/qemu/120/clone", { newid: 121 });
    const plain = await api.call("POST", "/nodes/pve1/qemu/121/migrate", { target: "pve2" });
    expect(plain.statusText).toBe(
      "can't migrate local disk 'local-lvm:base-120-disk-0/vm-121-disk-0': please use --with-local-disks",
    );
    const copy = await run("POST", "/nodes/pve1/qemu/121/migrate", {
      target: "pve2",
      "with-local-disks": 1,
    });
    expect(copy.exitstatus).toBe("migration aborted");
    expect(await taskLog(api, "pve1", copy.upid)).toContain(
      "ERROR: migration aborted (duration 00:00:00): can't migrate " +
        "'local-lvm:base-120-disk-0/vm-121-disk-0' as it's a clone of 'base-120-disk-0'",
    );
    const vm = sim.model.vms.get(121);
    expect([vm?.node, vm?.config["lock"]]).toEqual(["pve1", undefined]);
  });

  it("migrates a linked clone whose base is on shared storage", async () => {
    await createFromImage(api, images.url, 140, "debian.qcow2", "shared:0");
    expect((await convertToTemplate(api, 140))["exitstatus"]).toBe("OK");
    await run("POST", "/nodes/pve1/qemu/140/clone", { newid: 123 });
    expect(sim.model.vms.get(123)?.config["scsi0"]).toBe(
      "shared:base-140-disk-0/vm-123-disk-0,size=1M",
    );
    expect((await run("POST", "/nodes/pve1/qemu/123/migrate", { target: "pve2" })).exitstatus).toBe(
      "OK",
    );
    expect(sim.model.vms.get(123)?.node).toBe("pve2");
  });

  it("refuses a linked clone of a template on storage without clones, and of a plain VM", async () => {
    const thick = await api.call("POST", "/nodes/pve1/qemu/8000/clone", { newid: 124 });
    expect([thick.status, thick.statusText]).toEqual([
      500,
      "Linked clone feature is not supported for 'thick:base-8000-disk-0' (scsi0)",
    ]);
    await run("POST", "/nodes/pve1/qemu/120/clone", { newid: 125, full: 1 });
    const plain = await api.call("POST", "/nodes/pve1/qemu/125/clone", { newid: 126, full: 0 });
    expect(plain.statusText).toBe(
      "Linked clone feature is not supported for 'local-lvm:vm-125-disk-0' (scsi0)",
    );
    expect(
      (await run("POST", "/nodes/pve1/qemu/8000/clone", { newid: 124, full: 1 })).exitstatus,
    ).toBe("OK");
  });
});
