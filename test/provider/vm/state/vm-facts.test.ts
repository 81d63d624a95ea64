import { describe, expect, it } from "vitest";
import {
  bootDisk,
  cdromVolid,
  diskSizeGiB,
  doesStorageWork,
  driveStorages,
  formatNic,
  guestRunning,
  parseNic,
  parseTags,
} from "../../../../provider/vm/state/vm-facts";

describe("guestRunning", () => {
  it.each([
    ["running", "running", true],
    ["running", undefined, true],
    ["running", "", true],
    ["running", "paused", false],
    ["running", "prelaunch", false],
    ["stopped", "stopped", false],
    ["stopped", undefined, false],
  ] as const)("status %s with qmpstatus %s is %s", (status, qmp, expected) => {
    expect(guestRunning(status, qmp)).toBe(expected);
  });
});

describe("NICs", () => {
  it("reads model, MAC, bridge, VLAN and PVE's device options from the property string", () => {
    expect(
      parseNic(
        "virtio=bc:24:11:aa:bb:cc,bridge=vmbr0,firewall=1,mtu=9000,queues=4,rate=12.5,tag=20",
      ),
    ).toEqual({
      model: "virtio",
      mac: "BC:24:11:AA:BB:CC",
      bridge: "vmbr0",
      vlan: 20,
      firewall: true,
      mtu: 9000,
      queues: 4,
      rate: 12.5,
    });
  });

  it("reads firewall=0 as off and leaves options PVE does not show unset", () => {
    expect(parseNic("e1000=BC:24:11:00:00:01,bridge=vmbr1,firewall=0")).toEqual({
      model: "e1000",
      mac: "BC:24:11:00:00:01",
      bridge: "vmbr1",
      firewall: false,
    });
  });

  it("writes what it reads: a formatted NIC parses back to the same parts", () => {
    const nic = {
      model: "virtio",
      mac: "BC:24:11:00:00:02",
      bridge: "vmbr2",
      vlan: 30,
      firewall: false,
      mtu: 1,
      queues: 8,
      rate: 0.5,
    };
    expect(parseNic(formatNic(nic, undefined))).toEqual(nic);
  });

  it("keeps the current MAC unless one is pinned", () => {
    const network = { bridge: "vmbr1", model: "virtio" as const, ipv4: "dhcp" as const };
    expect(formatNic(network, "BC:24:11:00:00:01")).toBe("virtio=BC:24:11:00:00:01,bridge=vmbr1");
    expect(formatNic({ ...network, mac: "bc:24:11:00:00:09", vlan: 7 }, "BC:24:11:00:00:01")).toBe(
      "virtio=BC:24:11:00:00:09,bridge=vmbr1,tag=7",
    );
  });
});

describe("disks", () => {
  it("finds the boot disk from the boot order, skipping CD-ROMs", () => {
    expect(
      bootDisk({
        boot: "order=ide2;virtio0;net0",
        ide2: "local:iso/x.iso,media=cdrom",
        virtio0: "s:vm-1-disk-0,size=8G",
      }),
    ).toBe("virtio0");
    expect(bootDisk({ scsi1: "s:b,size=1G", scsi0: "s:a,size=2G" })).toBe("scsi0");
  });

  it.each([
    ["shared:vm-100-disk-0,size=20G", 20],
    ["shared:vm-100-disk-0,size=512M", 1],
    ["shared:vm-100-disk-0,size=2T,ssd=1", 2048],
    ["shared:vm-100-disk-0", undefined],
  ])("reads the size of %s as %s GiB", (value, expected) => {
    expect(diskSizeGiB(value)).toBe(expected);
  });
});

describe("doesStorageWork", () => {
  it("is true for a drive that asks for a new volume, the EFI and TPM disks included", () => {
    expect(doesStorageWork({ scsi1: "local-lvm:32,discard=on" }, [])).toBe(true);
    expect(doesStorageWork({ efidisk0: "local-lvm:1,efitype=4m" }, [])).toBe(true);
    expect(doesStorageWork({ tpmstate0: "local-lvm:0.004,version=v2.0" }, [])).toBe(true);
  });

  it("is true for a removed drive or unused volume", () => {
    expect(doesStorageWork({}, ["scsi1"])).toBe(true);
    expect(doesStorageWork({}, ["unused0"])).toBe(true);
  });

  it("is false for settings, NICs, an existing volume and a seed ISO in the CD-ROM", () => {
    const set = {
      cores: 2,
      memory: 1024,
      net0: "virtio=BC:24:11:00:00:01,bridge=vmbr0",
      scsi0: "local-lvm:vm-100-disk-0,size=20G",
      ide2: "local:iso/pp-seed.iso,media=cdrom",
    };
    expect(doesStorageWork(set, ["net1", "tags"])).toBe(false);
  });
});

describe("driveStorages", () => {
  it("lists each storage the VM's drives use once: disks, the EFI disk and CD-ROM images, not empty drives", () => {
    expect(
      driveStorages({
        scsi0: "shared:base-9000-disk-0,size=2G",
        scsi1: "local-lvm:base-9000-disk-1,size=8G",
        virtio0: "shared:base-9000-disk-2,size=1G",
        efidisk0: "ceph:base-9000-disk-3,efitype=4m,size=1M",
        ide2: "local:iso/seed.iso,media=cdrom",
        sata0: "none,media=cdrom",
        net0: "virtio=BC:24:11:AA:BB:CC,bridge=vmbr0",
      }),
    ).toEqual(["shared", "local-lvm", "ceph", "local"]);
  });
});

describe("cdromVolid and tags", () => {
  it("reads the ISO behind ide2 and nothing for an empty drive", () => {
    expect(cdromVolid("local:iso/pp-a-b.iso,media=cdrom")).toBe("local:iso/pp-a-b.iso");
    expect(cdromVolid("none,media=cdrom")).toBeUndefined();
  });

  it("normalises tags as PVE 7.3+ stores them", () => {
    expect(parseTags("b;A a,b")).toEqual(["a", "b"]);
  });
});
