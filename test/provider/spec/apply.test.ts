import { describe, expect, it } from "vitest";
import { markFor } from "../../../provider/identity";
import {
  configChanges,
  configDeletes,
  needsReboot,
  observedInputs,
} from "../../../provider/spec/apply";

const network = { bridge: "vmbr0", model: "virtio", ipv4: "dhcp" } as const;
const template = {
  cores: 4,
  memory: 4096,
  net0: "virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,firewall=1",
  tags: "base;linux",
};
const seen = { mac: "BC:24:11:AA:BB:CC" };

describe("configChanges", () => {
  it("leaves the template's own settings alone when the program does not set them", () => {
    expect(configChanges(template, { network }, seen)).toEqual({});
  });

  it("writes only the set inputs whose PVE value differs, formatted as PVE takes them", () => {
    const set = configChanges(
      template,
      { cores: 4, memory: 2048, tags: ["Web", "base"], network },
      seen,
    );
    expect(set).toEqual({ memory: 2048, tags: "base;web" });
  });

  it("reads PVE's normalised values as equal: tags in another order, net0 with its own options", () => {
    const set = configChanges(template, { tags: ["linux", "BASE"], network }, seen);
    expect(set).toEqual({});
  });

  it("rewrites net0 with the kept MAC when the bridge changes", () => {
    const set = configChanges(
      template,
      { network: { ...network, bridge: "vmbr1", vlan: 20 } },
      seen,
    );
    expect(set).toEqual({ net0: "virtio=BC:24:11:AA:BB:CC,bridge=vmbr1,tag=20" });
  });
});

describe("a field written to several keys (disks)", () => {
  const withDisks = {
    ...template,
    scsi0: "local-lvm:vm-120-disk-0,size=20G",
    scsi1: "local-lvm:vm-120-disk-1,size=50G",
  };
  const disks = [
    { interface: "scsi0", sizeGiB: 20 },
    { interface: "scsi1", sizeGiB: 50, ssd: true },
    { interface: "scsi2", sizeGiB: 8 },
    { interface: "scsi3", sizeGiB: 8, remove: true },
    { interface: "scsi4", sizeGiB: 8, remove: true },
  ];

  it("writes only the keys whose PVE value differs", () => {
    expect(configChanges(withDisks, { disks }, { ...seen, config: withDisks })).toEqual({
      scsi1: "local-lvm:vm-120-disk-1,size=50G,ssd=1",
      scsi2: "local-lvm:8",
    });
  });

  it("deletes the keys the field wants gone that PVE still has", () => {
    expect(
      configDeletes({ ...withDisks, scsi3: "local-lvm:vm-120-disk-3,size=8G" }, { disks }),
    ).toEqual(["scsi3"]);
    expect(configDeletes(withDisks, { disks })).toEqual([]);
  });
});

describe("needsReboot", () => {
  it("is true for a key PVE keeps pending on a running VM, false for one it hot-plugs", () => {
    expect(needsReboot(["cores"])).toBe(true);
    expect(needsReboot(["memory", "tags"])).toBe(true);
    expect(needsReboot(["tags", "net0"])).toBe(false);
  });
});

describe("observedInputs", () => {
  const mark = markFor(
    "0123456789abcdef",
    { node: "pve1", template: 9000, isoStorage: "local" },
    "complete",
  );

  it("reads placement from the mark, set inputs from PVE, unset inputs not at all", () => {
    const observed = observedInputs({ config: template, running: false }, mark, {
      node: "pve2",
      template: 9000,
      isoStorage: "local",
      cores: 2,
      started: true,
      waitForIp: true,
      network,
    });
    expect(observed).toMatchObject({
      node: "pve1",
      cores: 4,
      started: false,
      waitForIp: true,
      network,
    });
    expect(observed.memory).toBeUndefined();
    expect(observed.tags).toBeUndefined();
  });
});
