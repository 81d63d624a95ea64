import { describe, expect, it } from "vitest";
import { data } from "../support/client.js";
import { useSimulator } from "../support/use-simulator.js";

const { api } = useSimulator({ clonedVm: true });

const put = (params: Record<string, string | number>) => api.putConfig("pve1", 100, params);
const config = () => api.vmConfig("pve1", 100);
const volids = async (storage: string): Promise<unknown[]> =>
  (data(await api.get(`/nodes/pve1/storage/${storage}/content`)) as { volid: string }[]).map(
    (volume) => volume.volid,
  );

describe("model/pending", () => {
  it("allocates a volume for storage:size and lists it in the storage's content", async () => {
    await put({ scsi1: "local-lvm:8,ssd=1" });
    expect((await config())["scsi1"]).toBe("local-lvm:vm-100-disk-0,size=8G,ssd=1");
    expect(await volids("local-lvm")).toEqual(["local-lvm:vm-100-disk-0"]);
  });

  it("sizes EFI vars and TPM state disks by their content, whatever size was asked", async () => {
    await put({
      efidisk0: "local-lvm:1,efitype=4m,pre-enrolled-keys=1",
      tpmstate0: "local-lvm:1,version=v2.0",
    });
    expect(await config()).toMatchObject({
      efidisk0: "local-lvm:vm-100-disk-0,efitype=4m,pre-enrolled-keys=1,size=528K",
      tpmstate0: "local-lvm:vm-100-disk-1,size=4M,version=v2.0",
    });
  });

  it("detaches a deleted disk to unusedN and frees it when unusedN is deleted", async () => {
    await put({ scsi1: "local-lvm:8" });
    await put({ delete: "scsi1" });
    const detached = await config();
    expect([detached["scsi1"], detached["unused0"]]).toEqual([
      undefined,
      "local-lvm:vm-100-disk-0",
    ]);
    expect(await volids("local-lvm")).toEqual(["local-lvm:vm-100-disk-0"]);
    await put({ delete: "unused0" });
    expect((await config())["unused0"]).toBeUndefined();
    expect(await volids("local-lvm")).toEqual([]);
  });

  it("frees a deleted disk at once with force", async () => {
    await put({ virtio1: "local-lvm:2" });
    await put({ delete: "virtio1", force: 1 });
    const after = await config();
    expect([after["virtio1"], after["unused0"]]).toEqual([undefined, undefined]);
    expect(await volids("local-lvm")).toEqual([]);
  });

  it("keeps a replaced disk's volume as unused", async () => {
    await put({ scsi1: "local-lvm:2" });
    await put({ scsi1: "local-lvm:4" });
    const after = await config();
    expect([after["scsi1"], after["unused0"]]).toEqual([
      "local-lvm:vm-100-disk-1,size=4G",
      "local-lvm:vm-100-disk-0",
    ]);
  });

  it("refuses to remove a drive or an unused disk of a protected VM, and does after protection is off", async () => {
    await put({ scsi1: "local-lvm:2", unused3: "local-lvm:vm-100-disk-9", protection: 1 });
    const drive = await put({ delete: "scsi1" });
    expect([drive.status, drive.statusText]).toEqual([
      500,
      "can't remove drive 'scsi1' - protection mode enabled",
    ]);
    expect((await put({ delete: "unused3" })).statusText).toBe(
      "can't remove unused disk 'local-lvm:vm-100-disk-9' - protection mode enabled",
    );
    expect(await config()).toMatchObject({ scsi1: "local-lvm:vm-100-disk-0,size=2G" });
    expect(await volids("local-lvm")).toEqual(["local-lvm:vm-100-disk-0"]);
    const destroy = await api.call("DELETE", "/nodes/pve1/qemu/100");
    expect(destroy.statusText).toBe("can't remove VM 100 - protection mode enabled");
    await put({ delete: "protection" });
    expect((await put({ delete: "scsi1", force: 1 })).status).toBe(200);
    expect(await volids("local-lvm")).toEqual([]);
  });
});
