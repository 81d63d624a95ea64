import { describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";
import {
  formatDisks,
  readDisks,
  restartingDisks,
  type DiskInputs,
} from "../../../../provider/vm/spec/disks";
import { importedInputs } from "../../../../provider/vm/spec/import";

const base = {
  identity: { project: "infra", stack: "dev", name: "db" },
  node: "pve1",
  template: 9000,
};

const config = {
  boot: "order=scsi0",
  scsi0: "local-lvm:vm-120-disk-0,iothread=1,size=20G",
  sata1: "local-lvm:vm-120-disk-1,mbps_rd=50,iops_wr=300,size=50G",
};
const seen = { macs: {}, config };

const disk = (value: Partial<DiskInputs> & { interface: string }): DiskInputs => ({
  sizeGiB: 20,
  ...value,
});

const failuresOf = (disks: unknown) =>
  checkVm({}, { ...base, disks }).failures.map(({ property, reason }) => [property, reason]);

describe("check on a disk's I/O options", () => {
  it("refuses a burst without its limit or below it, naming the sub-input", () => {
    const ioLimits = { readMBps: 100, readBurstMBps: 50, writeBurstIops: 500 };
    expect(failuresOf([{ interface: "scsi0", sizeGiB: 20, ioLimits }])).toEqual([
      ["disks[0].ioLimits.readBurstMBps", "must be at least readMBps (100)"],
      ["disks[0].ioLimits.writeBurstIops", "needs writeIops too"],
    ]);
  });

  it("refuses a burst length with no burst, and a length under a second", () => {
    expect(
      failuresOf([
        { interface: "scsi0", sizeGiB: 20, ioLimits: { readIops: 10, burstSeconds: 5 } },
      ]),
    ).toEqual([["disks[0].ioLimits.burstSeconds", expect.stringMatching(/^needs a burst/)]]);
    expect(
      failuresOf([
        {
          interface: "scsi0",
          sizeGiB: 20,
          ioLimits: { readIops: 1, readBurstIops: 2, burstSeconds: 0 },
        },
      ]),
    ).toEqual([["disks[0].ioLimits.burstSeconds", "at least 1 second"]]);
  });

  it("refuses native AIO beside a caching mode, which QEMU cannot open with O_DIRECT", () => {
    expect(
      failuresOf([{ interface: "scsi0", sizeGiB: 20, aio: "native", cache: "writeback" }]),
    ).toEqual([
      ["disks[0].aio", 'native needs cache "none" or "directsync" (cache is "writeback")'],
    ]);
    expect(failuresOf([{ interface: "scsi0", sizeGiB: 20, aio: "native" }])).toEqual([]);
    expect(failuresOf([{ interface: "scsi0", sizeGiB: 20, aio: "uring" }])).toEqual([
      ["disks[0].aio", expect.stringContaining('"io_uring"')],
    ]);
  });
});

describe("formatDisks with I/O options", () => {
  it("writes the limits, bursts and burst lengths in PVE's option names", () => {
    const ioLimits = {
      readMBps: 100,
      writeMBps: 50.5,
      readIops: 1000,
      readBurstMBps: 200,
      readBurstIops: 2000,
      burstSeconds: 10,
    };
    expect(formatDisks([disk({ interface: "scsi0", aio: "io_uring", ioLimits })], seen)).toEqual({
      scsi0:
        "local-lvm:vm-120-disk-0,iothread=1,size=20G,aio=io_uring,mbps_rd=100,mbps_wr=50.5," +
        "iops_rd=1000,mbps_rd_max=200,iops_rd_max=2000,bps_rd_max_length=10,iops_rd_max_length=10",
    });
  });

  it("owns every limit: one the program leaves out is removed, one it keeps is rewritten", () => {
    const set = formatDisks(
      [disk({ interface: "sata1", sizeGiB: 50, ioLimits: { readMBps: 80 } })],
      seen,
    );
    expect(set).toEqual({ sata1: "local-lvm:vm-120-disk-1,mbps_rd=80,size=50G" });
  });

  it("leaves PVE's limits alone when the program sets no ioLimits", () => {
    expect(formatDisks([disk({ interface: "sata1", sizeGiB: 50 })], seen)).toEqual({
      sata1: config.sata1,
    });
  });
});

describe("readDisks with I/O options", () => {
  it("reads every limit the drive holds when the program sets ioLimits, and aio as written", () => {
    const input = [disk({ interface: "sata1", sizeGiB: 50, aio: "threads", ioLimits: {} })];
    expect(readDisks({ config, running: true }, input)).toEqual([
      {
        interface: "sata1",
        sizeGiB: 50,
        aio: undefined,
        ioLimits: { readMBps: 50, writeIops: 300 },
      },
    ]);
  });
});

describe("restartingDisks with I/O options", () => {
  it("takes a limit change at once on any bus, as block_set_io_throttle does", () => {
    const set = {
      scsi0: "local-lvm:vm-120-disk-0,iothread=1,size=20G,mbps_wr=10",
      sata1: "local-lvm:vm-120-disk-1,mbps_rd=80,size=50G",
    };
    expect(restartingDisks(config, set, [])).toEqual([]);
  });

  it("names a disk whose aio changes: vmconfig_update_disk keeps that pending", () => {
    const set = { scsi0: "local-lvm:vm-120-disk-0,iothread=1,size=20G,aio=native" };
    expect(restartingDisks(config, set, [])).toEqual(["scsi0"]);
  });
});

describe("importedInputs with I/O options", () => {
  it("imports a disk's aio and limits as the VM has them", () => {
    const vm = { config: { sata1: `${config.sata1},aio=threads` }, running: true };
    expect(importedInputs(vm).inputs.disks).toEqual([
      {
        interface: "sata1",
        storage: "local-lvm",
        sizeGiB: 50,
        aio: "threads",
        ioLimits: { readMBps: 50, writeIops: 300 },
      },
    ]);
  });
});
