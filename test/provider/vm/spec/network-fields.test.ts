import { describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";
import { diffVm } from "../../../../provider/vm/operations/diff";
import { configChanges, observedInputs } from "../../../../provider/vm/spec/apply";

const base = {
  identity: { project: "infra", stack: "dev", name: "router" },
  node: "pve1",
  template: 9000,
};
const MAC = "BC:24:11:00:00:01";
const seen = { macs: { net0: MAC } };

function checked(networks: unknown): Record<string, unknown> {
  const result = checkVm({}, { ...base, networks });
  expect(result.failures).toEqual([]);
  return result.inputs;
}

describe("networks: trunks and linkDown", () => {
  it("refuses a VLAN outside 1 to 4094 and an empty trunk list, naming the entry", () => {
    const failures = checkVm(
      {},
      { ...base, networks: [{ trunks: [10, 4095] }, { trunks: [] }] },
    ).failures;
    expect(failures.map((f) => [f.property, f.reason])).toEqual([
      ["networks[0].trunks[1]", "VLAN tags are 1 to 4094"],
      ["networks[1].trunks", "must list at least one VLAN (or leave trunks out)"],
    ]);
  });

  it("writes PVE's trunks and link_down, the VLANs sorted once each", () => {
    const inputs = checked([{ trunks: [30, 10, 20, 10], linkDown: true }]);
    expect(configChanges({}, inputs, seen)).toMatchObject({
      net0: `virtio=${MAC},bridge=vmbr0,trunks=10;20;30,link_down=1`,
    });
  });

  it("reads PVE's ranges and its absent link_down as the input's terms, so nothing drifts", () => {
    const inputs = checked([{ trunks: [20, 21, 22, 5], linkDown: false }]);
    const config = { net0: `virtio=${MAC},bridge=vmbr0,trunks=5;20-22` };
    expect(configChanges(config, inputs, seen)).not.toHaveProperty("net0");
    const observed = observedInputs({ config, running: true }, undefined, inputs);
    expect(observed["networks"]).toEqual(inputs["networks"]);
  });

  it("reads a cable someone plugged back in as drift", () => {
    const inputs = checked([{ linkDown: true }]);
    const config = { net0: `virtio=${MAC},bridge=vmbr0,link_down=0` };
    const observed = observedInputs({ config, running: true }, undefined, inputs);
    expect(observed["networks"]).toMatchObject([{ linkDown: false }]);
  });

  it("is changed in place with no reboot", () => {
    const olds = { ...checked([{ trunks: [10] }]), vmid: 100 };
    const news = checked([{ trunks: [10, 20], linkDown: true }]);
    expect(diffVm(olds, news)).toMatchObject({ changed: ["networks"], replaces: [] });
  });
});
