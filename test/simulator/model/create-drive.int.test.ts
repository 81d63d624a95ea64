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

const put = (params: Record<string, string | number>) => api.putConfig("pve1", 100, params);
const config = () => api.vmConfig("pve1", 100);
const volids = async (storage: string): Promise<string[]> =>
  (data(await api.get(`/nodes/pve1/storage/${storage}/content`)) as { volid: string }[]).map(
    (row) => row.volid,
  );

describe("model/create-drive over HTTP", () => {
  it("reads a drive's file= form like the bare volume: no unused copy, and a move frees it", async () => {
    await put({ scsi1: "local-lvm:2" });
    expect((await put({ scsi1: "file=local-lvm:vm-100-disk-0,ssd=1,cache=none" })).status).toBe(
      200,
    );
    const stored = await config();
    expect(stored["scsi1"]).toBe("local-lvm:vm-100-disk-0,cache=none,size=2G,ssd=1");
    expect(stored["unused0"]).toBeUndefined();
    const upid = data(
      await api.call("POST", "/nodes/pve1/qemu/100/move_disk", {
        disk: "scsi1",
        storage: "shared",
        delete: 1,
      }),
    );
    expect((await api.waitTask("pve1", String(upid)))["exitstatus"]).toBe("OK");
    expect(await volids("local-lvm")).not.toContain("local-lvm:vm-100-disk-0");
    expect((await config())["unused0"]).toBeUndefined();
  });

  it("prints an empty or physical CD-ROM as PVE does, whatever form it was written in", async () => {
    await put({ ide3: "file=cdrom,media=cdrom" });
    expect((await config())["ide3"]).toBe("cdrom,media=cdrom");
    await put({ ide3: "media=cdrom,volume=none,size=1G" });
    expect((await config())["ide3"]).toBe("none,media=cdrom");
  });

  it("answers 400 for a drive parse_drive refuses: a CD-ROM with a format", async () => {
    const res = await put({ ide3: "file=cdrom,media=cdrom,format=raw" });
    expect([res.status, res.body?.["errors"]]).toEqual([
      400,
      { ide3: "unable to parse drive options" },
    ]);
  });

  it("refuses a volume that does not exist, as create_disks does", async () => {
    const res = await put({ scsi2: "file=local-lvm:vm-100-disk-9" });
    expect([res.status, res.statusText]).toEqual([
      500,
      "volume local-lvm:vm-100-disk-9 does not exist",
    ]);
  });
});
