import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, type TestClient } from "../support/client.js";
import {
  downloadAndWait,
  startWithImages,
  stopImageSim,
  taskLog,
  type ImageServer,
} from "../support/image-server.js";

const IMAGE = Buffer.alloc(3 * 1024 * 1024, 5);
const SOURCE = "local:import/debian.qcow2";

let sim: Simulator;
let api: TestClient;
let images: ImageServer;

beforeEach(async () => {
  ({ sim, api, images } = await startWithImages(
    { "/debian.qcow2": IMAGE },
    { taskDurationsMs: { qmcreate: 200 } },
  ));
  const done = await downloadAndWait(api, {
    url: `${images.url}/debian.qcow2`,
    content: "import",
    filename: "debian.qcow2",
  });
  expect(done.exitstatus).toBe("OK");
});
afterEach(() => stopImageSim({ sim, api, images }));

const create = (params: Record<string, string | number>, client = api) =>
  client.call("POST", "/nodes/pve1/qemu", { vmid: 120, name: "debian-tmpl", ...params });
const disks = async (): Promise<unknown[]> =>
  (data(await api.get("/nodes/pve1/storage/local-lvm/content")) as Record<string, unknown>[]).map(
    (v) => [v["volid"], v["size"], v["vmid"]],
  );

describe("routes/qemu-create", () => {
  it("imports the boot disk from an import volume in a qmcreate task, the config locked until it ends", async () => {
    const res = await create({
      scsi0: `local-lvm:0,import-from=${SOURCE},discard=on`,
      scsihw: "virtio-scsi-pci",
      net0: "virtio,bridge=vmbr0",
      serial0: "socket",
      agent: "1",
    });
    const upid = String(data(res));
    expect(upid).toMatch(/:qmcreate:120:root@pam!ci:$/);
    const during = data(await api.get("/nodes/pve1/qemu/120/config")) as Record<string, unknown>;
    expect(during["lock"]).toBe("create");
    expect((await api.waitTask("pve1", upid))["exitstatus"]).toBe("OK");
    const config = data(await api.get("/nodes/pve1/qemu/120/config")) as Record<string, unknown>;
    expect(config).toMatchObject({
      name: "debian-tmpl",
      scsi0: "local-lvm:vm-120-disk-0,discard=on,size=3M",
      scsihw: "virtio-scsi-pci",
      serial0: "socket",
      agent: "1",
      boot: "order=scsi0;net0",
    });
    expect(config["lock"]).toBeUndefined();
    expect(String(config["net0"])).toMatch(/^virtio=([0-9A-F]{2}:){5}[0-9A-F]{2},bridge=vmbr0$/);
    expect(await disks()).toEqual([["local-lvm:vm-120-disk-0", IMAGE.length, 120]]);
    const log = await taskLog(api, "pve1", upid);
    expect(log).toContain(
      "scsi0: successfully created disk 'local-lvm:vm-120-disk-0,discard=on,size=3M'",
    );
    expect(log).toContain("transferred 3.0 MiB of 3.0 MiB (100.00%)");
    const listed = data(await api.get("/nodes/pve1/storage/local/content")) as unknown[];
    expect(listed).toHaveLength(1);
  });

  it("refuses ISO volumes, a sized target and absolute paths before creating anything", async () => {
    const iso = await create({ scsi0: "local-lvm:0,import-from=local:iso/debian.iso" });
    expect([iso.status, iso.body?.["errors"]]).toEqual([
      400,
      { scsi0: "local:iso/debian.iso has wrong type 'iso' - needs to be 'images' or 'import'" },
    ]);
    const sized = await create({ scsi0: `local-lvm:8,import-from=${SOURCE}` });
    expect(sized.body?.["errors"]).toEqual({
      scsi0: "'import-from' requires special syntax - use <storage ID>:0,import-from=<source>",
    });
    const path = await create({ scsi0: "local-lvm:0,import-from=/var/lib/vz/import/x.qcow2" });
    expect([path.status, path.body?.["message"]]).toEqual([
      500,
      "Only root can pass arbitrary filesystem paths.\n",
    ]);
    const taken = await create({ vmid: 9000, scsi0: `local-lvm:0,import-from=${SOURCE}` });
    expect(taken.body?.["message"]).toBe(
      "unable to create VM 9000 - VM 9000 already exists on node 'pve1'\n",
    );
    expect(sim.model.vms.has(120)).toBe(false);
    expect(await disks()).toEqual([]);
  });

  it("needs Datastore.Audit or Datastore.AllocateSpace on the import volume's storage", async () => {
    const acls = [
      { path: "/vms/120", privileges: ["VM.Allocate", "VM.Config.Disk", "VM.Config.Options"] },
      { path: "/storage/local-lvm", privileges: ["Datastore.AllocateSpace"] },
    ];
    const blind = api.withToken(sim.addToken("tmpl@pve!blind", acls));
    const refused = await create({ scsi0: `local-lvm:0,import-from=${SOURCE}` }, blind);
    expect([refused.status, refused.statusText]).toEqual([
      403,
      "Permission check failed (/storage/local, Datastore.AllocateSpace|Datastore.Audit)",
    ]);
    const reader = api.withToken(
      sim.addToken("tmpl@pve!reader", [
        ...acls,
        { path: "/storage/local", privileges: ["Datastore.Audit"] },
      ]),
    );
    const ok = await create({ scsi0: `local-lvm:0,import-from=${SOURCE}` }, reader);
    expect((await api.waitTask("pve1", String(data(ok))))["exitstatus"]).toBe("OK");
    const noAllocate = api.withToken(
      sim.addToken("tmpl@pve!noalloc", [{ path: "/", privileges: ["VM.Config.Disk"] }]),
    );
    const denied = await create({ vmid: 121, scsi0: "local-lvm:1" }, noAllocate);
    expect([denied.status, denied.statusText]).toEqual([403, "Permission check failed"]);
  });

  it("removes the config and every new disk when the import fails, so the same create can run again", async () => {
    const missing = "local:import/missing.qcow2";
    const res = await create({ scsi1: "local-lvm:1", scsi0: `local-lvm:0,import-from=${missing}` });
    const status = await api.waitTask("pve1", String(data(res)));
    expect(status["exitstatus"]).toBe(
      `unable to create VM 120 - cannot import from '${missing}' - could not get size of ${missing}`,
    );
    expect(sim.model.vms.has(120)).toBe(false);
    expect(await disks()).toEqual([]);
    const again = await create({
      scsi1: "local-lvm:1",
      scsi0: `local-lvm:0,import-from=${SOURCE}`,
    });
    expect((await api.waitTask("pve1", String(data(again))))["exitstatus"]).toBe("OK");
    expect(await disks()).toEqual([
      ["local-lvm:vm-120-disk-0", IMAGE.length, 120],
      ["local-lvm:vm-120-disk-1", 1024 ** 3, 120],
    ]);
  });

  it("removes the config when the VM's file lock cannot be taken, without a create prefix", async () => {
    void sim.faults.holdFileLock(120, 1500);
    const res = await create({ scsi0: `local-lvm:0,import-from=${SOURCE}` });
    const status = await api.waitTask("pve1", String(data(res)));
    expect(status["exitstatus"]).toBe(
      "can't lock file '/var/lock/qemu-server/lock-120.conf' - got timeout",
    );
    expect(sim.model.vms.has(120)).toBe(false);
    expect(await disks()).toEqual([]);
  });

  it("removes the config when an injected task failure ends the create, as a failed worker does", async () => {
    sim.faults.failTasks({ type: "qmcreate" }, "simulated task failure");
    const res = await create({ scsi0: `local-lvm:0,import-from=${SOURCE}` });
    expect(sim.model.vms.get(120)?.config["lock"]).toBe("create");
    const status = await api.waitTask("pve1", String(data(res)));
    expect(status["exitstatus"]).toBe("simulated task failure");
    expect(sim.model.vms.has(120)).toBe(false);
    expect(await disks()).toEqual([]);
  });
});
