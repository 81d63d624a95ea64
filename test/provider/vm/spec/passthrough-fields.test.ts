import { describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";
import { diffVm } from "../../../../provider/vm/operations/diff";
import {
  configChanges,
  configDeletes,
  observedInputs,
  waitingKeys,
} from "../../../../provider/vm/spec/apply";

const base = {
  identity: { project: "infra", stack: "dev", name: "gpu" },
  node: "pve1",
  template: 9000,
};
const seen = { macs: {} };
const running = { running: true };

function checked(inputs: Record<string, unknown>): Record<string, unknown> {
  const result = checkVm({}, { ...base, ...inputs });
  expect(result.failures).toEqual([]);
  return result.inputs;
}

describe("hostPci", () => {
  it("is refused by check with both or neither of mapping and host, naming the entry", () => {
    const failures = checkVm(
      {},
      { ...base, hostPci: [{ mapping: "gpu0", host: "0000:01:00.0" }, { pcie: false }] },
    ).failures;
    expect(failures.map((f) => f.property)).toEqual(["hostPci[0]", "hostPci[1]"]);
    expect(failures[0]?.reason).toMatch(/exactly one of the two/);
  });

  it("refuses pcie without the q35 machine, naming the device and the input to set", () => {
    const failures = checkVm({}, { ...base, hostPci: [{ mapping: "gpu0", pcie: true }] }).failures;
    expect(failures).toEqual([
      {
        property: "hostPci",
        reason: expect.stringMatching(/^hostPci\[0\]\.pcie .* machine: "q35"/),
      },
    ]);
    expect(
      checkVm({}, { ...base, machine: "q35", hostPci: [{ mapping: "gpu0", pcie: true }] }).failures,
    ).toEqual([]);
  });

  it("writes hostpci0… in order, and drops a device the list no longer has", () => {
    const inputs = checked({
      machine: "q35",
      hostPci: [{ mapping: "gpu0", pcie: true, xVga: true }],
    });
    const config = { hostpci1: "mapping=nic0" };
    expect(configChanges(config, inputs, seen)).toMatchObject({
      hostpci0: "mapping=gpu0,pcie=1,x-vga=1",
    });
    expect(configDeletes(config, inputs, seen)).toEqual(["hostpci1"]);
  });

  it("reads back only the options the program sets, PVE's defaults standing for the rest", () => {
    const inputs = checked({ hostPci: [{ host: "0000:02:00.0", rombar: true }] });
    const config = { hostpci0: "0000:02:00.0,romfile=vbios.bin" };
    expect(configChanges(config, inputs, seen)).not.toHaveProperty("hostpci0");
    expect(observedInputs({ config, ...running }, undefined, inputs)["hostPci"]).toEqual([
      { host: "0000:02:00.0", rombar: true },
    ]);
  });

  it("is changed in place, and a running VM takes it at its next reboot", () => {
    const olds = { ...checked({ hostPci: [{ mapping: "gpu0" }] }), vmid: 100 };
    const news = checked({ hostPci: [{ mapping: "gpu1" }] });
    expect(diffVm(olds, news)).toMatchObject({ changed: ["hostPci"], replaces: [] });
    expect(waitingKeys(["hostpci0"], news, seen, { hotplug: "network,disk,usb" })).toEqual([
      "hostpci0",
    ]);
  });
});

describe("usb", () => {
  it("writes a mapping or a raw id with usb3, and plugs it into a running VM whose hotplug has usb", () => {
    const inputs = checked({ usb: [{ mapping: "yubikey", usb3: true }, { host: "1-2" }] });
    expect(configChanges({}, inputs, seen)).toMatchObject({
      usb0: "mapping=yubikey,usb3=1",
      usb1: "host=1-2",
    });
    expect(waitingKeys(["usb0"], inputs, seen, { hotplug: "network,disk,usb" })).toEqual([]);
    expect(waitingKeys(["usb0"], inputs, seen, { hotplug: "network,disk" })).toEqual(["usb0"]);
  });

  it("is refused by check with a host id that is neither vendor:product nor bus-port", () => {
    const failures = checkVm({}, { ...base, usb: [{ host: "yubikey" }] }).failures;
    expect(failures.map((f) => f.property)).toEqual(["usb[0].host"]);
  });
});

describe("virtiofs", () => {
  it("writes the mapping as PVE's dirid with its options, and reads PVE's bare spelling back", () => {
    const inputs = checked({
      virtiofs: [{ mapping: "datasets", cache: "always", exposeAcl: true }],
    });
    expect(configChanges({}, inputs, seen)).toMatchObject({
      virtiofs0: "dirid=datasets,cache=always,expose-acl=1",
    });
    const config = { virtiofs0: "datasets,cache=always,expose-acl=1,writeback=1" };
    expect(configChanges(config, inputs, seen)).not.toHaveProperty("virtiofs0");
    expect(observedInputs({ config, ...running }, undefined, inputs)["virtiofs"]).toEqual([
      { mapping: "datasets", cache: "always", exposeAcl: true },
    ]);
  });

  it("is refused by check with a cache mode PVE does not have", () => {
    const failures = checkVm(
      {},
      { ...base, virtiofs: [{ mapping: "d", cache: "sometimes" }] },
    ).failures;
    expect(failures.map((f) => f.property).sort()).toEqual([
      "virtiofs[0].cache",
      "virtiofs[0].mapping",
    ]);
  });
});
