import { describe, expect, it } from "vitest";
import { markFor } from "../../../provider/identity";
import {
  configChanges,
  configDeletes,
  needsReboot,
  observedInputs,
} from "../../../provider/spec/apply";
import { networksSchema } from "../../../provider/spec/network";

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
