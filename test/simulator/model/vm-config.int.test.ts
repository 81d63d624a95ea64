import { describe, expect, it } from "vitest";
import { data } from "../support/client.js";
import { uploadFile } from "../support/upload.js";
import { useSimulator } from "../support/use-simulator.js";

const { sim, api } = useSimulator({ clonedVm: true });

const put = (params: Record<string, string | number>) => api.putConfig("pve1", 100, params);
const current = () => api.vmConfig("pve1", 100, true);
const power = async (action: string): Promise<void> => {
  const upid = data(await api.call("POST", `/nodes/pve1/qemu/100/status/${action}`));
  expect((await api.waitTask("pve1", String(upid)))["exitstatus"]).toBe("OK");
};
/** The keys GET …/pending shows with a pending value or a pending delete. */
const pendingKeys = async (): Promise<string[]> =>
  (data(await api.get("/nodes/pve1/qemu/100/pending")) as Record<string, unknown>[])
    .filter((row) => "pending" in row || "delete" in row)
    .map((row) => String(row["key"]));

describe("model/vm-config hot-plug of a running VM", () => {
  it("with the default hotplug, plugs NICs and SCSI/VirtIO disks and keeps the rest pending", async () => {
    await power("start");
    const res = await put({
      net1: "virtio,bridge=vmbr0",
      scsi1: "local-lvm:4",
      sata1: "local-lvm:1",
      cores: 4,
      vcpus: 2,
      memory: "4096",
      efidisk0: "local-lvm:1,efitype=4m",
      tpmstate0: "local-lvm:1,version=v2.0",
      bios: "ovmf",
      machine: "q35",
      onboot: 1,
    });
    expect(res.status).toBe(200);
    expect(await current()).toMatchObject({
      net1: expect.stringMatching(/^virtio=/),
      scsi1: "local-lvm:vm-100-disk-0,size=4G",
      onboot: 1,
    });
    expect((await pendingKeys()).sort()).toEqual(
      ["bios", "cores", "efidisk0", "machine", "memory", "sata1", "tpmstate0", "vcpus"].sort(),
    );
  });

  it("shows current and pending values together in GET …/pending", async () => {
    await power("start");
    await put({ cores: 4, delete: "serial0", cipassword: "s3cret" });
    const rows = data(await api.get("/nodes/pve1/qemu/100/pending")) as Record<string, unknown>[];
    expect(rows.find((row) => row["key"] === "cores")).toEqual({
      key: "cores",
      value: 2,
      pending: 4,
    });
    expect(rows.find((row) => row["key"] === "cipassword")).toEqual({
      key: "cipassword",
      value: "**********",
    });
    expect(JSON.stringify(rows)).not.toContain("s3cret");
    expect(rows.find((row) => row["key"] === "serial0")).toEqual({
      key: "serial0",
      value: "socket",
      delete: 1,
    });
  });

  it("hot-plugs vCPUs with cpu in hotplug, and memory only with memory in hotplug and NUMA on", async () => {
    await put({ hotplug: "network,disk,cpu,memory", sockets: 2, cores: 2, vcpus: 2 });
    await power("start");
    await put({ vcpus: 3, memory: "4096" });
    expect(await current()).toMatchObject({ vcpus: 3 });
    expect(await pendingKeys()).toEqual(["memory"]);
    await power("stop");
    await put({ numa: 1 });
    await power("start");
    await put({ memory: "8192" });
    expect(await current()).toMatchObject({ memory: "8192", numa: 1 });
    expect(await pendingKeys()).toEqual([]);
  });

  it("refuses more vCPUs than sockets × cores as a hotplug problem and keeps the value pending", async () => {
    await put({ hotplug: "cpu", vcpus: 1 });
    await power("start");
    const res = await put({ vcpus: 3 });
    expect([res.status, res.body?.["errors"]]).toEqual([
      400,
      { vcpus: "hotplug problem - you can't add more vcpus than maxcpus" },
    ]);
    expect((await current())["vcpus"]).toBe(1);
    expect(await pendingKeys()).toEqual(["vcpus"]);
  });

  it("changes a running disk's I/O limits at once, but its cache or SSD flag at the next start", async () => {
    await put({ scsi1: "local-lvm:2" });
    await power("start");
    await put({ scsi1: "local-lvm:vm-100-disk-0,size=2G,mbps_rd=100,iops_wr=500" });
    expect((await current())["scsi1"]).toBe(
      "local-lvm:vm-100-disk-0,iops_wr=500,mbps_rd=100,size=2G",
    );
    await put({ scsi1: "local-lvm:vm-100-disk-0,size=2G,ssd=1,cache=writeback" });
    expect(await pendingKeys()).toEqual(["scsi1"]);
  });

  it("resizes the balloon at once but turns it on or off only at the next start", async () => {
    await put({ balloon: 512 });
    await power("start");
    await put({ balloon: 1024 });
    expect((await current())["balloon"]).toBe(1024);
    await put({ balloon: 0 });
    expect(await pendingKeys()).toEqual(["balloon"]);
  });

  it("changes hotplug at once unless memory hot-plug is switched on or off", async () => {
    await power("start");
    await put({ hotplug: "network,disk,cpu" });
    expect((await current())["hotplug"]).toBe("network,disk,cpu");
    await put({ hotplug: "network,disk,cpu,memory" });
    expect(await pendingKeys()).toEqual(["hotplug"]);
  });

  it("refuses to turn a running VM's disk into a CD-ROM, and swaps CD-ROM media at once", async () => {
    await put({ ide2: "none,media=cdrom", ide1: "local-lvm:1" });
    await power("start");
    const media = await put({ ide1: "none,media=cdrom" });
    expect([media.status, media.body?.["errors"]]).toEqual([
      400,
      { ide1: "hotplug problem - unable to change media type" },
    ]);
    const upload = await uploadFile(sim, "pve1", "local", "seed.iso", Buffer.alloc(4096));
    await api.waitTask("pve1", String(upload.body?.["data"]));
    await put({ ide2: "local:iso/seed.iso,media=cdrom" });
    // create_disks gives an existing volume its size.
    expect((await current())["ide2"]).toBe("local:iso/seed.iso,media=cdrom,size=4K");
    expect(await pendingKeys()).toEqual(["ide1"]);
  });

  it("never hot-plugs a disk or a NIC when hotplug leaves them out", async () => {
    await put({ hotplug: "0" });
    await power("start");
    await put({ net1: "virtio,bridge=vmbr0", scsi1: "local-lvm:2", delete: "net0" });
    expect((await pendingKeys()).sort()).toEqual(["net0", "net1", "scsi1"]);
  });

  it("changes a SATA disk's I/O limits at once, and with hotplug 0, but its aio at the next start", async () => {
    await put({ sata1: "local-lvm:2", hotplug: "0" });
    await power("start");
    await put({ sata1: "local-lvm:vm-100-disk-0,size=2G,mbps_wr=20" });
    expect((await current())["sata1"]).toBe("local-lvm:vm-100-disk-0,mbps_wr=20,size=2G");
    await put({ sata1: "local-lvm:vm-100-disk-0,size=2G,mbps_wr=20,aio=threads" });
    expect(await pendingKeys()).toEqual(["sata1"]);
  });

  it("changes a NIC's trunks and link at once with hotplug 0, but its model at the next start", async () => {
    await put({ hotplug: "0", net0: "virtio=BC:24:11:00:00:10,bridge=vmbr0" });
    await power("start");
    await put({ net0: "virtio=BC:24:11:00:00:10,bridge=vmbr0,link_down=1,trunks=10;20-30" });
    expect((await current())["net0"]).toBe(
      "virtio=BC:24:11:00:00:10,bridge=vmbr0,link_down=1,trunks=10;20-30",
    );
    await put({ net0: "e1000=BC:24:11:00:00:10,bridge=vmbr0" });
    expect(await pendingKeys()).toEqual(["net0"]);
  });

  it("detaches a deleted SCSI disk of a running VM at once, to unusedN", async () => {
    await put({ scsi1: "local-lvm:2" });
    await power("start");
    await put({ delete: "scsi1" });
    const after = await current();
    expect([after["scsi1"], after["unused0"]]).toEqual([undefined, "local-lvm:vm-100-disk-0"]);
  });

  it("applies pending changes at the next start after a stop, and after a reboot", async () => {
    await power("start");
    await put({ cores: 4, bios: "ovmf" });
    await power("reboot");
    for (let i = 0; i < 100 && (await current())["cores"] !== 4; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await current()).toMatchObject({ cores: 4, bios: "ovmf" });
    expect(await pendingKeys()).toEqual([]);
  });

  it("reverts pending changes, and refuses a revert of a key set in the same request", async () => {
    await power("start");
    await put({ cores: 4, sockets: 2, delete: "serial0" });
    await put({ revert: "cores,serial0" });
    expect(await pendingKeys()).toEqual(["sockets"]);
    const both = await put({ sockets: 1, revert: "sockets" });
    expect(both.body?.["errors"]).toEqual({
      revert: "you can't use '-sockets' and '-revert sockets' at the same time",
    });
    await power("stop");
    expect(await current()).toMatchObject({ cores: 2, sockets: 2, serial0: "socket" });
  });

  it("refuses a balloon above the memory, counting pending memory", async () => {
    const res = await put({ balloon: 4096 });
    expect([res.status, res.statusText]).toEqual([
      500,
      "balloon value too large (must be smaller than assigned memory)",
    ]);
    expect((await put({ memory: "8192", balloon: 4096 })).status).toBe(200);
  });
});
