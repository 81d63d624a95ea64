import { describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";
import { UNKNOWN } from "../../../../provider/inputs/unknown";

const valid = {
  __provider: "require(...)",
  identity: { project: "infra", stack: "dev", name: "web" },
  node: "pve1",
  template: 9000,
};

describe("checkVm", () => {
  it("accepts minimal inputs and fills the defaults", () => {
    const result = checkVm({}, valid);
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({
      __provider: "require(...)",
      isoStorage: "local",
      started: true,
      waitForIp: true,
      network: { bridge: "vmbr0", model: "virtio", ipv4: "dhcp" },
      vmidRange: { min: 10_000, max: 99_999 },
    });
  });

  it("names the property and says what is allowed", () => {
    const result = checkVm({}, { ...valid, node: "pve 1", cores: 0, network: { vlan: 5000 } });
    expect(result.failures).toEqual([
      {
        property: "node",
        reason: "must be a Proxmox node name: letters, digits and inner hyphens, e.g. pve1",
      },
      { property: "cores", reason: "at least 1 core" },
      { property: "network.vlan", reason: "VLAN tags are 1 to 4094" },
    ]);
  });

  it("reports a missing required input", () => {
    const { node: _node, ...rest } = valid;
    expect(checkVm({}, rest).failures).toEqual([{ property: "node", reason: "is required" }]);
  });

  it("rejects a misspelt property instead of ignoring it", () => {
    expect(checkVm({}, { ...valid, core: 2 }).failures).toEqual([
      {
        property: "core",
        reason: "is not a known property: check the spelling against the ProxmoxVm docs",
      },
    ]);
  });

  it.each([
    [
      { network: { nameservers: ["not an ip!"] } },
      "network.nameservers[0]",
      "must be an IP address (IPv4 or IPv6)",
    ],
    [
      { network: { ipv4: { address: "999.1.1.1/24" } } },
      "network.ipv4.address",
      "must be an IPv4 address with a prefix length, e.g. 10.0.0.5/24",
    ],
    [
      { network: { ipv4: { address: "10.0.0.5" } } },
      "network.ipv4.address",
      "must be an IPv4 address with a prefix length, e.g. 10.0.0.5/24",
    ],
    [
      { network: { ipv4: { address: "10.0.0.5/24", gateway: "10.0.0.256" } } },
      "network.ipv4.gateway",
      "must be an IPv4 address",
    ],
    [
      { network: { ipv4: "static" } },
      "network.ipv4",
      'must be "dhcp" or { address: "10.0.0.5/24", gateway: "10.0.0.1" }',
    ],
    [
      { network: { ipv6: { address: "10.0.0.5/24" } } },
      "network.ipv6.address",
      "must be an IPv6 address with a prefix length, e.g. 2001:db8::10/64",
    ],
    [
      { network: { searchDomains: ["bad domain"] } },
      "network.searchDomains[0]",
      "must be a domain name, e.g. example.com",
    ],
    [
      { network: { mac: "52:54:00:12:34" } },
      "network.mac",
      "must be a MAC address like BC:24:11:00:00:01",
    ],
    [
      { network: { gateway: "10.0.0.1" } },
      "network.gateway",
      "is not a known property of network: check the spelling against the ProxmoxVm docs",
    ],
    [
      { memory: "lots" },
      "memory",
      "must be a number of MiB, e.g. 2048, or { sizeMiB, balloonMiB?, shares?, hugepages? }, got a string",
    ],
    [{ memory: 2048.5 }, "memory", "must be a whole number of MiB, e.g. 2048"],
    [{ memory: 8 }, "memory", "memory is in MiB, at least 16"],
    [{ memory: { sizeMiB: 8 } }, "memory.sizeMiB", "memory is in MiB, at least 16"],
    [
      { memory: { sizeMiB: 2048, balloonMiB: 4096 } },
      "memory.balloonMiB",
      "must not exceed sizeMiB",
    ],
    [
      { memory: { sizeMiB: 2048, hugepages: 4 } },
      "memory.hugepages",
      'must be "any", 2 or 1024 (MiB pages)',
    ],
    [
      { cores: 4, cpu: { type: "host" } },
      "cores",
      "is the shorthand of cpu.cores, and cpu is set too: write it once, as cpu: { cores: 4 } without cores",
    ],
    [{ cpu: { sockets: 1, cores: 2, vcpus: 3 } }, "cpu.vcpus", "must not exceed sockets × cores"],
    [
      { cpu: { flags: ["+aes"] } },
      "cpu.flags",
      "needs cpu.type too: PVE writes flags and model as one value",
    ],
    [
      { cpu: { type: "host", flags: ["aes"] } },
      "cpu.flags[0]",
      'must be a CPU flag with + or -, e.g. "+aes"',
    ],
    [{ cpu: { cores: 0 } }, "cpu.cores", "at least 1 core"],
    [
      { hotplug: ["network", "nics"] },
      "hotplug[1]",
      "must be one of network, disk, cpu, memory, usb, cloudinit",
    ],
    [{ startup: {} }, "startup", "must set order, up or down"],
    [{ startup: { order: 1.5 } }, "startup.order", "must be a whole start position, e.g. 1"],
    [{ cores: "two" }, "cores", "must be a number of cores, e.g. 2, got a string"],
    [{ diskSize: [20] }, "diskSize", "must be a number of GiB, e.g. 20, got an array"],
    [{ node: 5 }, "node", "must be a string, got a number"],
    [{ network: "vmbr0" }, "network", "must be an object, got a string"],
    [
      { cloudInit: { users: [{ name: "ops", sudo: "ALL=(ALL) ALL\nroot ALL" }] } },
      "cloudInit.users[0].sudo",
      "must be one sudoers line",
    ],
    [
      { cloudInit: { users: [{ name: "Ops" }] } },
      "cloudInit.users[0].name",
      "must be a POSIX name: a-z _ first, then a-z 0-9 _ -, up to 32",
    ],
    [
      { cloudInit: { network: [{ dhcp4: true }] } },
      "cloudInit.network",
      "cannot be set: the seed's network config is derived from the VM's `network` input " +
        "(ipv4, ipv6, nameservers, searchDomains); set those instead",
    ],
    [
      { cloudInit: { userData: "#cloud-config\npackages: [a]\n", packages: ["b"] } },
      "cloudInit.packages",
      "cannot be combined with userData, which replaces the generated user-data",
    ],
  ])("rejects %j at the property as written, saying the rule", (bad, property, reason) => {
    expect(checkVm({}, { ...valid, ...bad }).failures).toEqual([{ property, reason }]);
  });

  it("accepts what the seed builder accepts: sudo true, IPv6, nameservers of both families", () => {
    const result = checkVm(
      {},
      {
        ...valid,
        network: {
          ipv4: { address: "10.0.0.5/24", gateway: "10.0.0.1" },
          ipv6: { address: "2001:db8::10/64", gateway: "2001:db8::1" },
          nameservers: ["10.0.0.1", "2001:db8::53"],
          searchDomains: ["example.com"],
        },
        cloudInit: { users: [{ name: "ops", sudo: true }] },
      },
    );
    expect(result.failures).toEqual([]);
    expect(result.inputs["cloudInit"]).toEqual({ users: [{ name: "ops", sudo: true }] });
  });

  it("refuses a disk shrink before any API call", () => {
    expect(checkVm({ diskSize: 40 }, { ...valid, diskSize: 20 }).failures).toEqual([
      {
        property: "diskSize",
        reason:
          "Proxmox cannot shrink disks: it was 40 GiB, so diskSize must be 40 or more (or replace the VM).",
      },
    ]);
  });

  it("refuses OVMF without an EFI disk, naming both", () => {
    const { failures } = checkVm({}, { ...valid, bios: "ovmf" });
    expect(failures).toEqual([
      {
        property: "bios",
        reason: expect.stringMatching(/bios "ovmf" needs an EFI disk.*set efiDisk/),
      },
    ]);
    const withDisk = checkVm({}, { ...valid, bios: "ovmf", efiDisk: { storage: "local-lvm" } });
    expect(withDisk.failures).toEqual([]);
    expect(withDisk.inputs["efiDisk"]).toEqual({
      storage: "local-lvm",
      preEnrolledKeys: true,
      type: "4m",
    });
  });

  it("refuses a linked clone with a disk storage, which PVE's clone refuses", () => {
    const { failures } = checkVm({}, { ...valid, clone: { full: false }, storage: "fast" });
    expect(failures).toEqual([
      { property: "clone", reason: expect.stringMatching(/PVE refuses storage.*remove storage/) },
    ]);
    expect(checkVm({}, { ...valid, clone: { full: true }, storage: "fast" }).failures).toEqual([]);
    // Known once the storage is known: the preview does not guess.
    expect(checkVm({}, { ...valid, clone: { full: false }, storage: UNKNOWN }).failures).toEqual(
      [],
    );
  });

  it("refuses a change of an EFI or TPM disk once created, and allows adding one", () => {
    const efiDisk = { storage: "local-lvm", preEnrolledKeys: true, type: "4m" };
    const olds = { ...valid, bios: "ovmf", efiDisk };
    const moved = checkVm(olds, { ...olds, efiDisk: { storage: "ceph" } });
    expect(moved.failures).toEqual([
      { property: "efiDisk", reason: expect.stringMatching(/cannot be changed once created/) },
    ]);
    expect(checkVm(olds, { ...olds, efiDisk: { storage: "local-lvm" } }).failures).toEqual([]);
    expect(checkVm(valid, { ...valid, tpm: { storage: "local-lvm" } }).failures).toEqual([]);
  });

  it("reads stored inputs as the program wrote them: an unchanged EFI or TPM disk is no change", () => {
    // The engine stores what the program wrote, defaults not filled in.
    const olds = {
      ...valid,
      bios: "ovmf",
      efiDisk: { storage: "local-lvm" },
      tpm: { storage: "local-lvm" },
    };
    expect(checkVm(olds, olds).failures).toEqual([]);
    expect(checkVm(olds, { ...olds, tpm: { storage: "ceph" } }).failures).toEqual([
      { property: "tpm", reason: expect.stringMatching(/cannot be changed once created/) },
    ]);
  });

  it("names the machine type PVE expects for i440fx", () => {
    expect(checkVm({}, { ...valid, machine: "i440fx" }).failures).toEqual([
      { property: "machine", reason: expect.stringMatching(/q35, pc \(i440fx\)/) },
    ]);
    expect(checkVm({}, { ...valid, machine: "pc-i440fx-8.1+pve1" }).failures).toEqual([]);
  });

  it("tolerates values that are unknown during preview", () => {
    const result = checkVm({}, { ...valid, node: UNKNOWN, network: { mac: UNKNOWN } });
    expect(result.failures).toEqual([]);
    expect(result.inputs["node"]).toBe(UNKNOWN);
  });

  it("tolerates unknown values inside cloudInit and network while reporting known mistakes", () => {
    const result = checkVm(
      {},
      {
        ...valid,
        memory: UNKNOWN,
        cloudInit: { users: [{ name: UNKNOWN, sshAuthorizedKeys: UNKNOWN }] },
        network: { nameservers: [UNKNOWN, "not an ip!"] },
      },
    );
    expect(result.failures).toEqual([
      { property: "network.nameservers[1]", reason: "must be an IP address (IPv4 or IPv6)" },
    ]);
  });
});

describe("checkVm with several NICs", () => {
  const base = {
    identity: { project: "infra", stack: "dev", name: "web" },
    node: "pve1",
    template: 9000,
  };

  it("refuses network and networks together, naming networks", () => {
    const { failures } = checkVm({}, { ...base, network: {}, networks: [{}] });
    expect(failures).toEqual([
      {
        property: "networks",
        reason:
          "cannot be combined with network, its shorthand: move network into networks[0] or remove networks",
      },
    ]);
  });

  it("refuses VM-level nameservers beside the network shorthand", () => {
    const { failures } = checkVm({}, { ...base, network: {}, nameservers: ["10.0.0.53"] });
    expect(failures.map((f) => f.property)).toEqual(["nameservers"]);
  });

  it("names the NIC and the option of a bad value: networks[1].mtu", () => {
    const { failures } = checkVm({}, { ...base, networks: [{}, { model: "e1000", mtu: 9000 }] });
    expect(failures).toEqual([{ property: "networks[1].mtu", reason: "is for virtio NICs only" }]);
  });

  it("refuses the same pinned MAC on two NICs, at the second", () => {
    const mac = "BC:24:11:00:00:07";
    const { failures } = checkVm({}, { ...base, networks: [{ mac }, { mac: mac.toLowerCase() }] });
    expect(failures).toEqual([
      {
        property: "networks[1].mac",
        reason: "is already the MAC of networks[0]; each NIC needs its own",
      },
    ]);
  });

  it("accepts networks with VM-level DNS and fills each NIC's defaults", () => {
    const { inputs, failures } = checkVm(
      {},
      { ...base, networks: [{ vlan: 20 }, { bridge: "vmbr1" }], nameservers: ["10.0.0.53"] },
    );
    expect(failures).toEqual([]);
    expect(inputs["networks"]).toEqual([
      { bridge: "vmbr0", model: "virtio", ipv4: "dhcp", vlan: 20 },
      { bridge: "vmbr1", model: "virtio", ipv4: "dhcp" },
    ]);
  });
});
