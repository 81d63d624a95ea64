import { describe, expect, it } from "vitest";
import type { GuestInterface } from "../../../../provider/pve/api/proxmox-api";
import { isLoopbackOrLinkLocal, ownAddresses } from "../../../../provider/vm/state/guest-addresses";

const MAC = "BC:24:11:AA:BB:CC";
const v4 = (address: string) => ({ address, type: "ipv4" as const });
const v6 = (address: string) => ({ address, type: "ipv6" as const });

const container: GuestInterface[] = [
  { name: "lo", hardwareAddress: "00:00:00:00:00:00", ipAddresses: [v4("127.0.0.1"), v6("::1")] },
  { name: "docker0", hardwareAddress: "02:42:ac:11:00:01", ipAddresses: [v4("172.17.0.1")] },
  { name: "weave", hardwareAddress: "7a:1b:2c:3d:4e:5f", ipAddresses: [v4("10.32.0.1")] },
  {
    name: "eth0",
    hardwareAddress: "bc:24:11:aa:bb:cc",
    ipAddresses: [
      v4("169.254.12.34"),
      v4("10.10.0.101"),
      v6("fe80::be24:11ff:feaa:bbcc"),
      v6("2001:db8::5"),
    ],
  },
];

describe("ownAddresses", () => {
  it("keeps only the NIC whose hardware address is the VM's MAC, whatever its case", () => {
    expect(ownAddresses(container, [MAC])).toEqual({ v4: ["10.10.0.101"], v6: ["2001:db8::5"] });
  });

  it("matches a hardware address written with dashes", () => {
    const nic = {
      name: "Ethernet",
      hardwareAddress: "BC-24-11-AA-BB-CC",
      ipAddresses: [v4("10.1.1.1")],
    };
    expect(ownAddresses([nic], [MAC]).v4).toEqual(["10.1.1.1"]);
  });

  it("counts a VLAN or bond interface that shares the NIC's MAC, once per address", () => {
    const vlan = {
      name: "eth0.20",
      hardwareAddress: "bc:24:11:aa:bb:cc",
      ipAddresses: [v4("10.20.0.4"), v4("10.10.0.101")],
    };
    expect(ownAddresses([...container, vlan], [MAC]).v4).toEqual(["10.10.0.101", "10.20.0.4"]);
  });

  it("reports nothing while the NIC has only link-local addresses", () => {
    const booting = container.map((nic) =>
      nic.name === "eth0"
        ? { ...nic, ipAddresses: [v4("169.254.12.34"), v6("fe80::be24:11ff:feaa:bbcc")] }
        : nic,
    );
    expect(ownAddresses(booting, [MAC])).toEqual({ v4: [], v6: [] });
  });

  it("lists the addresses NIC by NIC in the VM's order, not the agent's", () => {
    const second = {
      name: "eth1",
      hardwareAddress: "bc:24:11:00:00:02",
      ipAddresses: [v4("192.168.7.2"), v6("2001:db8:7::2")],
    };
    expect(ownAddresses([second, ...container], [MAC, "BC:24:11:00:00:02"])).toEqual({
      v4: ["10.10.0.101", "192.168.7.2"],
      v6: ["2001:db8::5", "2001:db8:7::2"],
    });
  });

  it("reports nothing for a VM without a NIC MAC", () => {
    expect(ownAddresses(container, [])).toEqual({ v4: [], v6: [] });
  });
});

describe("isLoopbackOrLinkLocal", () => {
  it.each([
    ["127.0.0.1", "ipv4", true],
    ["127.1.2.3", "ipv4", true],
    ["169.254.0.1", "ipv4", true],
    ["169.255.0.1", "ipv4", false],
    ["10.0.0.1", "ipv4", false],
    ["::1", "ipv6", true],
    ["fe80::1", "ipv6", true],
    ["FEBF::1", "ipv6", true],
    ["fec0::1", "ipv6", false],
    ["2001:db8::1", "ipv6", false],
  ] as const)("%s (%s) → %s", (address, type, expected) => {
    expect(isLoopbackOrLinkLocal(address, type)).toBe(expected);
  });
});
