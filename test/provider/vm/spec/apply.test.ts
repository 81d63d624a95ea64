import { describe, expect, it } from "vitest";
import { markFor } from "../../../../provider/vm/identity";
import {
  configChanges,
  configDeletes,
  keysWithInputs,
  managedKeys,
  observedInputs,
  waitingKeys,
} from "../../../../provider/vm/spec/apply";
import { networksSchema } from "../../../../provider/vm/spec/network";

const network = { bridge: "vmbr0", model: "virtio", ipv4: "dhcp" } as const;
const template = {
  cores: 4,
  memory: 4096,
  net0: "virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,firewall=1",
  tags: "base;linux",
};
const seen = { macs: { net0: "BC:24:11:AA:BB:CC" } };

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

describe("waitingKeys", () => {
  const desired = {
    cpu: { sockets: 1, cores: 4, vcpus: 2, units: 200, limit: 1.5 },
    memory: { sizeMiB: 4096, balloonMiB: 1024, shares: 500 },
    tags: ["web"],
    network,
    onBoot: true,
  };
  const written = ["sockets", "cores", "vcpus", "cpuunits", "cpulimit", "memory", "balloon"];
  const waits = (current: Record<string, string | number>) =>
    waitingKeys([...written, "shares", "tags", "net0", "onboot"], desired, seen, current);

  it("holds cores, sockets, vCPUs and memory for the reboot under PVE's default hotplug", () => {
    expect(waits({})).toEqual(["memory", "sockets", "cores", "vcpus"]);
  });

  it("hot-plugs vCPUs once the VM runs with cpu in hotplug", () => {
    expect(waits({ hotplug: "network,disk,cpu" })).toEqual(["memory", "sockets", "cores"]);
  });

  it("hot-plugs memory only with memory in hotplug and NUMA on", () => {
    expect(waits({ hotplug: "memory" })).toContain("memory");
    expect(waits({ hotplug: "memory,cpu", numa: 1 })).toEqual(["sockets", "cores"]);
  });

  it("decides with the hotplug the VM runs with, not the one being written", () => {
    const alsoHotplug = { ...desired, hotplug: ["cpu"] as string[] };
    expect(waitingKeys(["vcpus", "hotplug"], alsoHotplug, seen, {})).toEqual(["vcpus"]);
  });

  it("holds the cores shorthand for the reboot too", () => {
    expect(waitingKeys(["cores"], { cores: 2 }, seen, { hotplug: "cpu" })).toEqual(["cores"]);
  });
});

describe("managedKeys", () => {
  it("lists every key the set inputs write, and nothing of the unset ones", () => {
    expect(managedKeys({ cpu: { type: "host", numa: true }, protection: true }, seen)).toEqual([
      "cpu",
      "numa",
      "protection",
    ]);
  });
});

describe("configChanges of the firmware inputs", () => {
  const ovmfVm = {
    ...template,
    agent: "enabled=1,fstrim_cloned_disks=1",
    bios: "ovmf",
    efidisk0: "local-lvm:vm-100-disk-1,efitype=4m,pre-enrolled-keys=1,size=4M",
    tpmstate0: "local-lvm:vm-100-disk-2,size=4M,version=v2.0",
    machine: "type=q35,viommu=intel",
    vga: "serial0,memory=16",
    boot: "order=scsi0;net0",
  };
  const firmware = {
    network,
    agent: { fstrimClonedDisks: true },
    bios: "ovmf",
    efiDisk: { storage: "local-lvm", preEnrolledKeys: true, type: "4m" },
    tpm: { storage: "local-lvm", version: "v2.0" },
    machine: "q35",
    vga: "serial0",
    boot: ["scsi0", "net0"],
  } as const;

  it("reads PVE's allocated volumes and its own spellings as what the program asked for", () => {
    expect(configChanges(ovmfVm, firmware, seen)).toEqual({});
  });

  it("writes what a plain template lacks: new EFI and TPM disks, firmware, machine, agent options", () => {
    expect(configChanges({ ...template, agent: "1" }, firmware, seen)).toEqual({
      agent: "enabled=1,fstrim_cloned_disks=1",
      bios: "ovmf",
      efidisk0: "local-lvm:1,efitype=4m,pre-enrolled-keys=1",
      tpmstate0: "local-lvm:1,version=v2.0",
      machine: "q35",
      vga: "serial0",
      boot: "order=scsi0;net0",
    });
  });

  it("turns the guest agent on when the template has it off, with no option set", () => {
    expect(configChanges({ ...template, agent: "0" }, { agent: {}, network }, seen)).toEqual({
      agent: "1",
    });
    expect(
      configChanges({ ...template, agent: "enabled=1" }, { agent: {}, network }, seen),
    ).toEqual({});
  });
});

describe("waitingKeys of the firmware inputs", () => {
  it("keeps every firmware key for the next reboot, whatever hotplug allows", () => {
    // qemu-server hot-plugs none of these: a running VM keeps them under /pending.
    const desired = {
      network,
      agent: { fstrimClonedDisks: true },
      bios: "ovmf",
      efiDisk: { storage: "local-lvm", preEnrolledKeys: true, type: "4m" },
      tpm: { storage: "local-lvm", version: "v2.0" },
      machine: "q35",
      scsihw: "virtio-scsi-single",
      vga: "serial0",
      serial: "socket",
      boot: ["scsi0", "net0"],
    } as const;
    const keys = ["bios", "efidisk0", "tpmstate0", "machine", "scsihw", "vga", "serial0", "boot"];
    const current = { hotplug: "network,disk,usb,cpu,memory", numa: 1 };
    expect(waitingKeys([...keys, "agent"], desired, seen, current).sort()).toEqual(
      [...keys, "agent"].sort(),
    );
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
      configDeletes({ ...withDisks, scsi3: "local-lvm:vm-120-disk-3,size=8G" }, { disks }, seen),
    ).toEqual(["scsi3"]);
    expect(configDeletes(withDisks, { disks }, seen)).toEqual([]);
  });
});

describe("configChanges and configDeletes with networks", () => {
  const vm = {
    net0: "virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,firewall=1",
    net1: "e1000=BC:24:11:00:00:01,bridge=vmbr9",
    net2: "virtio=BC:24:11:00:00:02,bridge=vmbr9",
  };
  const macs = { net0: "BC:24:11:AA:BB:CC", net1: "BC:24:11:00:00:01" };
  const networks = networksSchema.parse([
    { bridge: "vmbr0" },
    { bridge: "vmbr1", vlan: 20, mtu: 9000, firewall: true },
  ]);

  it("writes each NIC that differs under its own key, keeping the MAC PVE generated", () => {
    expect(configChanges(vm, { network, networks }, { macs })).toEqual({
      net1: "virtio=BC:24:11:00:00:01,bridge=vmbr1,tag=20,firewall=1,mtu=9000",
    });
  });

  it("leaves PVE's options the program does not set (net0's firewall=1) alone", () => {
    expect(configChanges(vm, { networks: networksSchema.parse([{}]) }, { macs })).toEqual({});
  });

  it("ignores the network shorthand, defaulted by check, once networks is set", () => {
    const shorthand = { ...network, bridge: "vmbr7" };
    expect(configChanges(vm, { network: shorthand, networks }, { macs })).not.toHaveProperty(
      "net0",
    );
  });

  it("deletes the NICs beyond the list, and none when networks is not set", () => {
    expect(configDeletes(vm, { network, networks }, { macs })).toEqual(["net2"]);
    expect(configDeletes(vm, { network }, { macs })).toEqual([]);
  });

  it("reads the NICs back as the program wrote them, reporting what PVE changed", () => {
    const observed = observedInputs({ config: vm, running: true }, undefined, {
      network,
      networks,
    });
    expect(observed.networks).toEqual([
      { bridge: "vmbr0", model: "virtio", ipv4: "dhcp" },
      { bridge: "vmbr9", model: "e1000", ipv4: "dhcp", firewall: false },
    ]);
    // Not read from net0: the shorthand stands aside.
    expect(observed.network).toEqual(network);
  });

  it("reads a pinned MAC back in PVE's upper case, so a lower-case pin is not drift", () => {
    const pinned = networksSchema.parse([{ mac: "bc:24:11:aa:bb:cc" }]);
    const observed = observedInputs({ config: vm, running: true }, undefined, {
      networks: pinned,
    });
    expect(observed.networks).toEqual(pinned);
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
    expect(observed.clone).toEqual({ full: true });
    expect(observed.memory).toBeUndefined();
    expect(observed.tags).toBeUndefined();
  });

  it("reads a linked clone from the mark that records it", () => {
    const linked = markFor(
      "0123456789abcdef",
      { node: "pve1", template: 9000, isoStorage: "local", clone: { full: false } },
      "complete",
    );
    const observed = observedInputs({ config: template, running: true }, linked, { network });
    expect(observed.clone).toEqual({ full: false });
  });
});

describe("keysWithInputs", () => {
  const nics = networksSchema.parse([{ bridge: "vmbr0" }, { bridge: "vmbr1" }]);

  it("names an input written to one key of its own name by that name alone", () => {
    expect(keysWithInputs(["memory"], { memory: 1024 }, seen)).toEqual(["memory"]);
  });

  it("names an object input behind each of its keys, not as a list's element", () => {
    const desired = { memory: { sizeMiB: 2048, balloonMiB: 1024 }, cpu: { cores: 2, sockets: 1 } };
    expect(keysWithInputs(["balloon", "cores", "sockets"], desired, seen)).toEqual([
      "balloon (memory)",
      "cores (cpu)",
      "sockets (cpu)",
    ]);
  });

  it("names a NIC by its place in networks", () => {
    expect(keysWithInputs(["net1"], { networks: nics }, seen)).toEqual(["net1 (networks[1])"]);
  });

  it("names a disk by the element that declares it, past one marked for removal", () => {
    const disks = [
      { interface: "scsi1", remove: true },
      { interface: "scsi2", storage: "local-lvm", sizeGiB: 8 },
    ];
    expect(keysWithInputs(["scsi2"], { disks }, seen)).toEqual(["scsi2 (disks[1])"]);
  });
});
