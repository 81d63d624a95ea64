import { describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";
import { diffVm } from "../../../../provider/vm/operations/diff";
import {
  configChanges,
  configDeletes,
  observedInputs,
  waitingKeys,
} from "../../../../provider/vm/spec/apply";

const base = { identity: { project: "p", stack: "s", name: "db" }, node: "pve1", template: 9000 };
const seen = { macs: {} };
const nodes = [
  { cpus: "0-1", memoryMiB: 2048, hostNodes: "0", policy: "bind" },
  { cpus: "2-3", memoryMiB: 2048 },
];

const failures = (inputs: Record<string, unknown>) =>
  checkVm({}, { ...base, ...inputs }).failures.map((f) => [f.property, f.reason]);

describe("numa", () => {
  it("writes one numaN per node and turns NUMA on", () => {
    const { inputs } = checkVm({}, { ...base, memory: 4096, numa: nodes });
    expect(configChanges({}, inputs, seen)).toMatchObject({
      numa: 1,
      numa0: "cpus=0-1,hostnodes=0,memory=2048,policy=bind",
      numa1: "cpus=2-3,memory=2048",
    });
  });

  it("refuses host nodes without a policy, naming the node", () => {
    expect(failures({ numa: [{ cpus: "0", memoryMiB: 512, hostNodes: "0" }] })).toEqual([
      [
        "numa[0].hostNodes",
        "needs a policy too: PVE starts the VM only with a policy for its host nodes",
      ],
    ]);
  });

  it("refuses nodes whose memory does not add up to the VM's, and NUMA switched off", () => {
    expect(failures({ memory: 8192, numa: nodes })).toEqual([
      [
        "numa",
        "the nodes' memoryMiB add up to 4096 MiB, but PVE starts the VM only when they equal its " +
          "memory (8192 MiB): change a node's memoryMiB or memory.",
      ],
    ]);
    expect(failures({ memory: 4096, cpu: { numa: false }, numa: nodes })).toEqual([
      ["numa", "needs NUMA on: remove cpu.numa: false (numa turns it on) or remove numa."],
    ]);
  });

  it("reads the nodes back, host nodes and policy only where the program sets them", () => {
    const { inputs } = checkVm({}, { ...base, numa: [nodes[1]] });
    const config = { numa: 1, numa0: "cpus=2-3,memory=2048,policy=preferred" };
    expect(Object.keys(configChanges(config, inputs, seen))).not.toContain("numa0");
    expect(observedInputs({ config, running: true }, undefined, inputs)["numa"]).toEqual([
      nodes[1],
    ]);
  });

  it("deletes a node dropped from the list, and a running VM takes the change at its next reboot", () => {
    const { inputs } = checkVm({}, { ...base, numa: [nodes[1]] });
    expect(configDeletes({ numa0: "cpus=2-3,memory=2048", numa1: "cpus=4" }, inputs, seen)).toEqual(
      ["numa1"],
    );
    expect(waitingKeys(["numa0"], inputs, seen, {})).toEqual(["numa0"]);
    const olds = { ...checkVm({}, { ...base, numa: nodes }).inputs, vmid: 100 };
    expect(diffVm(olds, inputs)).toMatchObject({ changed: ["numa"], replaces: [] });
  });
});
