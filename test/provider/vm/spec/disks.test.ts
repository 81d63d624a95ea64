import { describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";
import {
  formatDisks,
  readDisks,
  refuseDisks,
  removedDisks,
  restartingDisks,
  type DiskInputs,
} from "../../../../provider/vm/spec/disks";

const base = {
  identity: { project: "infra", stack: "dev", name: "db" },
  node: "pve1",
  template: 9000,
};

/** A clone of a template whose boot disk is scsi0 on local-lvm, as PVE 8 stores it. */
const config = {
  boot: "order=scsi0;ide2",
  scsi0: "local-lvm:vm-120-disk-0,iothread=1,size=20G",
  scsi1: "local-lvm:vm-120-disk-1,backup=0,size=50G",
  ide2: "local:iso/pp-seed.iso,media=cdrom",
};
const seen = { macs: {}, config };

const disk = (value: Partial<DiskInputs> & { interface: string }): DiskInputs => ({
  sizeGiB: 20,
  ...value,
});

describe("check on disks", () => {
  it("names the entry and the property the user wrote", () => {
    const failures = checkVm(
      {},
      {
        ...base,
        disks: [
          { interface: "scsi0", sizeGiB: 20 },
          { interface: "scsi1", sizeGiB: 0 },
        ],
      },
    ).failures;
    expect(failures).toEqual([{ property: "disks[1].sizeGiB", reason: "is in GiB, at least 1" }]);
  });

  it("refuses options PVE's drive format lacks on that bus, and a slot declared twice", () => {
    const failures = checkVm(
      {},
      {
        ...base,
        disks: [
          { interface: "virtio1", sizeGiB: 8, ssd: true },
          { interface: "sata0", sizeGiB: 8, iothread: true },
          { interface: "sata0", sizeGiB: 8 },
        ],
      },
    ).failures;
    expect(failures).toEqual([
      { property: "disks[0].ssd", reason: "virtio disks have no ssd option" },
      { property: "disks[1].iothread", reason: "SATA disks have no iothread option" },
      { property: "disks[2].interface", reason: "sata0 is declared twice" },
    ]);
  });

  it("refuses diskSize beside disks, saying how to size the boot disk instead", () => {
    const failures = checkVm(
      {},
      { ...base, diskSize: 30, disks: [{ interface: "scsi0", sizeGiB: 30 }] },
    ).failures;
    expect(failures).toEqual([
      {
        property: "diskSize",
        reason: expect.stringContaining("cannot be set together with disks"),
      },
    ]);
  });

  it("refuses a shrink, naming the disk, the entry and both sizes", () => {
    const old = [
      { interface: "scsi0", sizeGiB: 20 },
      { interface: "scsi1", sizeGiB: 50 },
    ];
    const failures = checkVm(
      { disks: old },
      {
        ...base,
        disks: [
          { interface: "scsi0", sizeGiB: 20 },
          { interface: "scsi1", sizeGiB: 40 },
        ],
      },
    ).failures;
    expect(failures).toEqual([
      {
        property: "disks",
        reason:
          "Proxmox cannot shrink disks: scsi1 was 50 GiB, so disks[1].sizeGiB must be 50 or more (or replace the VM).",
      },
    ]);
  });

  it("refuses a disk dropped from the list unless it was marked remove", () => {
    const kept = [disk({ interface: "scsi0" })];
    expect(refuseDisks([...kept, disk({ interface: "scsi1" })], kept)).toMatch(
      /^scsi1 left the list: to detach it, keep it with remove: true/,
    );
    expect(
      refuseDisks([...kept, disk({ interface: "scsi1", remove: true })], kept),
    ).toBeUndefined();
  });

  it("refuses a format change that no allocation or move would apply", () => {
    const raw = disk({ interface: "scsi1", storage: "local", format: "raw" });
    const before = [raw];
    expect(refuseDisks(before, [{ ...raw, format: "qcow2" }])).toMatch(
      /scsi1's format applies when it is allocated or moved/,
    );
    expect(refuseDisks(before, [{ ...raw, format: "qcow2", storage: "shared" }])).toBeUndefined();
  });
});

describe("formatDisks", () => {
  it("allocates a disk the VM lacks on its storage, with PVE's storage:GiB syntax", () => {
    const set = formatDisks(
      [disk({ interface: "scsi2", storage: "shared", sizeGiB: 100, format: "qcow2", ssd: true })],
      seen,
    );
    expect(set).toEqual({ scsi2: "shared:100,format=qcow2,ssd=1" });
  });

  it("puts a new disk without a storage beside the boot disk", () => {
    expect(formatDisks([disk({ interface: "virtio0", sizeGiB: 8 })], seen)).toEqual({
      virtio0: "local-lvm:8",
    });
  });

  it("writes an existing disk over its own volume, keeping what the program does not set", () => {
    const set = formatDisks(
      [disk({ interface: "scsi0", sizeGiB: 40, discard: true, cache: "writeback" })],
      seen,
    );
    expect(set).toEqual({
      scsi0: "local-lvm:vm-120-disk-0,iothread=1,size=20G,discard=on,cache=writeback",
    });
  });

  it("writes nothing new when PVE's value already says it, defaults included", () => {
    const set = formatDisks(
      [
        disk({ interface: "scsi0", iothread: true, ssd: false, cache: "none", replicate: true }),
        disk({ interface: "scsi1", sizeGiB: 50, backup: false }),
      ],
      seen,
    );
    expect(set).toEqual({ scsi0: config.scsi0, scsi1: config.scsi1 });
  });

  it("leaves a disk marked remove out, for removedDisks to detach", () => {
    const disks = [disk({ interface: "scsi1", sizeGiB: 50, remove: true })];
    expect(formatDisks(disks, seen)).toEqual({});
    expect(removedDisks(disks)).toEqual(["scsi1"]);
  });
});

describe("restartingDisks", () => {
  it("names existing disks whose cache, discard, ssd or iothread change, not new ones", () => {
    const set = {
      scsi0: "local-lvm:vm-120-disk-0,iothread=1,size=20G,discard=on",
      scsi1: "local-lvm:vm-120-disk-1,backup=1,size=50G",
      scsi2: "local-lvm:8",
      tags: "db",
    };
    expect(restartingDisks(config, set, ["virtio3"])).toEqual(["scsi0"]);
  });

  it("names every SATA disk added or detached: PVE hot-plugs only SCSI and virtio disks", () => {
    expect(restartingDisks(config, { sata1: "local-lvm:8" }, ["sata2"])).toEqual([
      "sata1",
      "sata2",
    ]);
  });
});

describe("readDisks", () => {
  const vm = (extra: Record<string, string> = {}) => ({
    config: { ...config, ...extra },
    running: true,
  });

  it("reads size always, storage and options only where the program sets them", () => {
    const input = [
      disk({ interface: "scsi0", sizeGiB: 20 }),
      disk({ interface: "scsi1", sizeGiB: 50, storage: "shared", backup: true, cache: "none" }),
    ];
    expect(readDisks(vm({ scsi0: "local-lvm:vm-120-disk-0,size=24G" }), input)).toEqual([
      { interface: "scsi0", sizeGiB: 24 },
      {
        interface: "scsi1",
        sizeGiB: 50,
        storage: "local-lvm",
        backup: false,
        cache: "none",
      },
    ]);
  });

  it("reads PVE's own spellings back as the input's: 512M rounds up, discard=on, ssd=1", () => {
    const input = [disk({ interface: "sata1", sizeGiB: 1, discard: true, ssd: true })];
    expect(
      readDisks(vm({ sata1: "local-lvm:vm-120-disk-2,discard=on,size=512M,ssd=1" }), input),
    ).toEqual(input);
  });

  it("leaves a missing disk out and unmarks a removed disk still attached, so both are drift", () => {
    const input = [
      disk({ interface: "scsi3", sizeGiB: 8 }),
      disk({ interface: "scsi1", sizeGiB: 50, remove: true }),
      disk({ interface: "scsi4", sizeGiB: 8, remove: true }),
    ];
    expect(readDisks(vm(), input)).toEqual([
      { interface: "scsi1", sizeGiB: 50, remove: false },
      { interface: "scsi4", sizeGiB: 8, remove: true },
    ]);
  });
});
