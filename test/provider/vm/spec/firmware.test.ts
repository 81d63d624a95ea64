import { describe, expect, it } from "vitest";
import {
  formatAgent,
  formatBootOrder,
  formatEfiDisk,
  formatTpm,
  parseAgent,
  parseBootOrder,
  parseEfiDisk,
  parseMachine,
  parseTpm,
  parseVga,
  propertyString,
  sameAgent,
} from "../../../../provider/vm/spec/firmware";

describe("propertyString", () => {
  it("reads the bare first value under its key and the rest by name", () => {
    expect(propertyString("local-lvm:vm-100-disk-1,efitype=4m,size=4M", "file")).toEqual({
      file: "local-lvm:vm-100-disk-1",
      efitype: "4m",
      size: "4M",
    });
    expect(propertyString("type=q35,viommu=intel", "type")).toEqual({
      type: "q35",
      viommu: "intel",
    });
    expect(propertyString(undefined, "type")).toEqual({});
  });
});

describe("efiDisk", () => {
  const disk = { storage: "local-lvm", preEnrolledKeys: true, type: "4m" } as const;

  it("is written as a new allocation on its storage, with its options", () => {
    expect(formatEfiDisk(disk)).toBe("local-lvm:1,efitype=4m,pre-enrolled-keys=1");
    expect(formatEfiDisk({ ...disk, preEnrolledKeys: false, type: "2m" })).toBe(
      "local-lvm:1,efitype=2m,pre-enrolled-keys=0",
    );
  });

  it("reads back from the volume PVE allocated, with its size appended", () => {
    expect(parseEfiDisk("local-lvm:vm-100-disk-1,efitype=4m,pre-enrolled-keys=1,size=4M")).toEqual(
      disk,
    );
    expect(parseEfiDisk(formatEfiDisk(disk))).toEqual(disk);
  });

  it("fills PVE's defaults: a 2m disk without enrolled keys", () => {
    expect(parseEfiDisk("ceph:vm-100-disk-0,size=128K")).toEqual({
      storage: "ceph",
      preEnrolledKeys: false,
      type: "2m",
    });
    expect(parseEfiDisk(undefined)).toBeUndefined();
  });
});

describe("tpm", () => {
  it("round-trips through PVE's allocated volume; an absent version is PVE's v1.2", () => {
    const tpm = { storage: "local-lvm", version: "v2.0" } as const;
    expect(formatTpm(tpm)).toBe("local-lvm:1,version=v2.0");
    expect(parseTpm("local-lvm:vm-100-disk-2,size=4M,version=v2.0")).toEqual(tpm);
    expect(parseTpm("local-lvm:vm-100-disk-2,size=4M")).toEqual({ ...tpm, version: "v1.2" });
    expect(parseTpm("")).toBeUndefined();
  });
});

describe("machine and vga", () => {
  it("read the type whether PVE stores it bare or as type=, absent as PVE's default", () => {
    expect(parseMachine("pc-q35-8.1")).toBe("pc-q35-8.1");
    expect(parseMachine("type=q35,viommu=virtio")).toBe("q35");
    expect(parseMachine(undefined)).toBe("pc");
    expect(parseVga("qxl,memory=32")).toBe("qxl");
    expect(parseVga("type=serial0")).toBe("serial0");
    expect(parseVga(undefined)).toBe("std");
  });
});

describe("boot order", () => {
  it("round-trips order=; the legacy letters name no device", () => {
    expect(formatBootOrder(["scsi0", "net0"])).toBe("order=scsi0;net0");
    expect(parseBootOrder("order=scsi0;ide2;net0")).toEqual(["scsi0", "ide2", "net0"]);
    expect(parseBootOrder("cdn")).toEqual([]);
    expect(parseBootOrder(undefined)).toEqual([]);
  });
});

describe("agent", () => {
  it("is written as 1 when the program sets no option, as before options existed", () => {
    expect(formatAgent({})).toBe("1");
    expect(formatAgent({ fstrimClonedDisks: true, type: "isa" })).toBe(
      "enabled=1,fstrim_cloned_disks=1,type=isa",
    );
  });

  it("reads PVE's spellings with its defaults", () => {
    expect(parseAgent("1")).toEqual({ enabled: true, fstrimClonedDisks: false, type: "virtio" });
    expect(parseAgent("enabled=0,type=isa")).toEqual({
      enabled: false,
      fstrimClonedDisks: false,
      type: "isa",
    });
    expect(parseAgent(undefined).enabled).toBe(false);
  });

  it("compares only the options written, with the agent on", () => {
    expect(sameAgent("enabled=1,fstrim_cloned_disks=1", "1")).toBe(true);
    expect(sameAgent("1", "enabled=1,type=virtio")).toBe(true);
    expect(sameAgent("1", "enabled=1,fstrim_cloned_disks=1")).toBe(false);
    expect(sameAgent("0", "1")).toBe(false);
    expect(sameAgent(undefined, "1")).toBe(false);
  });
});
