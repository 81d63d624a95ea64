import { describe, expect, it } from "vitest";
import type { NodeStorage } from "../../../../provider/pve/api/proxmox-api";
import {
  snapshotRefusals,
  snapshotsOn,
  volumeFormat,
  type RefusalFacts,
} from "../../../../provider/vm/rollback/refusals";

const vm = { node: "pve1", vmid: 100 };
const storage = (id: string, type: string): NodeStorage => ({
  storage: id,
  type,
  content: ["images"],
  shared: false,
  active: true,
  enabled: true,
});
const storages = [
  storage("local-lvm", "lvmthin"),
  storage("local", "dir"),
  storage("thick", "lvm"),
  storage("ceph", "rbd"),
];
const noWork = { moves: [], grows: [] };

function refusals(facts: Partial<RefusalFacts>) {
  return snapshotRefusals({
    vm,
    config: {},
    storages,
    desired: {},
    work: noWork,
    ...facts,
  });
}

describe("snapshotsOn", () => {
  it("snapshots every format on lvmthin, zfspool and rbd, and only qcow2 on a directory or LVM", () => {
    expect(["lvmthin", "zfspool", "rbd"].map((t) => snapshotsOn(t, "raw"))).toEqual([
      true,
      true,
      true,
    ]);
    expect([snapshotsOn("dir", "raw"), snapshotsOn("dir", "qcow2")]).toEqual([false, true]);
    expect([snapshotsOn("lvm", "raw"), snapshotsOn("nfs", "vmdk")]).toEqual([false, false]);
    expect(snapshotsOn("iscsi", "raw")).toBe(false);
  });

  it("leaves a storage type of a third-party plugin to PVE", () => {
    expect(snapshotsOn("purestorage", "raw")).toBeUndefined();
  });
});

describe("volumeFormat", () => {
  it("reads the format from the volume's file suffix, raw without one", () => {
    expect(volumeFormat("local:100/vm-100-disk-0.qcow2")).toBe("qcow2");
    expect(volumeFormat("local-lvm:vm-100-disk-0")).toBe("raw");
  });
});

describe("snapshotRefusals", () => {
  it("refuses nothing for disks PVE snapshots, and ignores the seed CD-ROM", () => {
    const config = {
      scsi0: "local-lvm:vm-100-disk-0,size=8G",
      scsi1: "local:100/vm-100-disk-1.qcow2,size=4G",
      ide2: "local:iso/pp-seed.iso,media=cdrom",
    };
    expect(refusals({ config })).toEqual([]);
  });

  it("names the disk and its storage when PVE cannot snapshot it", () => {
    const config = {
      scsi0: "local-lvm:vm-100-disk-0,size=8G",
      scsi1: "thick:vm-100-disk-1,size=4G",
      efidisk0: "local:100/vm-100-disk-2.raw,size=4M",
    };
    const found = refusals({ config });
    expect(found.map((f) => f.property)).toEqual(["rollbackOnFailure", "rollbackOnFailure"]);
    expect(found[0]?.reason).toMatch(
      /^disk efidisk0 of VM 100 on pve1 is a raw volume on storage local \(dir\), which PVE cannot snapshot/,
    );
    expect(found[1]?.reason).toMatch(
      /^disk scsi1 of VM 100 on pve1 is a raw volume on storage thick \(lvm\)/,
    );
    expect(found[1]?.reason).toMatch(
      /Move it to a storage PVE snapshots \(.*\) in an `up` with rollbackOnFailure off \(a move is refused while it is on\), then turn it back on; or remove rollbackOnFailure; nothing was written\.$/,
    );
  });

  it("names a new disk the update would put where PVE cannot snapshot it", () => {
    const config = { scsi0: "local-lvm:vm-100-disk-0,size=8G" };
    const disks = [
      { interface: "scsi0", sizeGiB: 8 },
      { interface: "scsi1", storage: "local", sizeGiB: 4 },
      { interface: "scsi2", storage: "local", sizeGiB: 4, format: "qcow2" as const },
    ];
    const found = refusals({ config, desired: { disks } });
    expect(found.map((f) => f.property)).toEqual(["disks[1].storage"]);
    expect(found[0]?.reason).toMatch(
      /^the new disk scsi1 would be a raw volume on storage local \(dir\)/,
    );
  });

  it("refuses a disk move, which PVE refuses while a snapshot holds the disk", () => {
    const config = { scsi0: "local-lvm:vm-100-disk-0,size=8G" };
    const disks = [{ interface: "scsi0", storage: "ceph", sizeGiB: 8 }];
    const work = { moves: [{ disk: "scsi0", target: { storage: "ceph" } }], grows: [] };
    const found = refusals({ config, desired: { disks }, work });
    expect(found).toEqual([
      {
        property: "disks[0].storage",
        reason: expect.stringMatching(
          /^moving disk scsi0 of VM 100 on pve1 from storage local-lvm to ceph: PVE refuses/,
        ) as unknown as string,
      },
    ]);
  });

  it("refuses growing a qcow2 disk, and allows growing a raw one", () => {
    const config = {
      scsi0: "local:100/vm-100-disk-0.qcow2,size=8G",
      scsi1: "local-lvm:vm-100-disk-1,size=8G",
    };
    const work = {
      moves: [],
      grows: [
        { disk: "scsi0", fromGiB: 8, toGiB: 16 },
        { disk: "scsi1", fromGiB: 8, toGiB: 16 },
      ],
    };
    const found = refusals({ config, desired: { diskSize: 16 }, work });
    expect(found.map((f) => f.property)).toEqual(["diskSize"]);
    expect(found[0]?.reason).toMatch(
      /PVE refuses to resize a qcow2 disk while the VM has a snapshot/,
    );
  });
});
