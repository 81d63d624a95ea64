import { describe, expect, it } from "vitest";
import { markFor } from "../../../provider/identity";
import { configChanges, needsReboot, observedInputs } from "../../../provider/spec/apply";

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
