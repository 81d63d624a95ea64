import { simulatorContext } from "../../../support/test-context";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import { readVm } from "../../../../provider/vm/operations/read";
import { updateVm } from "../../../../provider/vm/operations/update";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { startSimulator, type Simulator } from "../../../../simulator";

/** Host devices and shares on a VM the simulator runs, over HTTP, through resource mappings. */

const resolve = (devices: Record<string, unknown>) => {
  const checked = checkVm(
    {},
    {
      identity: { project: "int", stack: "passthrough", name: "vm" },
      node: "pve1",
      template: 9000,
      machine: "q35",
      ...devices,
    },
  );
  expect(checked.failures).toEqual([]);
  return checked.inputs as ResolvedInputs;
};

let sim: Simulator;
let ctx: OperationContext;
let progress: string[];

beforeEach(async () => {
  sim = await startSimulator();
  sim.faults.setMapping("pci", "gpu0", { map: ["node=pve1,path=0000:01:00.0,id=10de:2204"] });
  sim.faults.setMapping("pci", "gpu1", { map: ["node=pve1,path=0000:02:00.0,id=10de:2204"] });
  sim.faults.setMapping("usb", "yubikey", { map: ["node=pve1,id=1050:0407"] });
  sim.faults.setMapping("dir", "datasets", { map: ["node=pve1,path=/srv/datasets"] });
  progress = [];
  ctx = {
    ...simulatorContext(sim),
    progress: (m) => progress.push(m),
    warn: () => undefined,
  };
});
afterEach(() => sim.close());

describe("the passthrough inputs", () => {
  it("creates a running VM with a mapped GPU, a mapped USB key and a share, and reads them back", async () => {
    const devices = {
      hostPci: [{ mapping: "gpu0", pcie: true }],
      usb: [{ mapping: "yubikey", usb3: true }],
      virtiofs: [{ mapping: "datasets", cache: "always" }],
    };
    const state = await createVm(ctx, resolve(devices));

    const vm = sim.model.vms.get(state.vmid);
    expect(vm?.config).toMatchObject({
      hostpci0: "mapping=gpu0,pcie=1",
      usb0: "mapping=yubikey,usb3=1",
      virtiofs0: "dirid=datasets,cache=always",
    });
    expect([vm?.status, vm?.pciDevices]).toEqual(["running", ["0000:01:00.0"]]);
    expect(await readVm(ctx, state)).toMatchObject(devices);
    await deleteVm(ctx, state);
  });

  it("reboots a running VM to give it another GPU, which PVE keeps pending", async () => {
    const state = await createVm(ctx, resolve({ hostPci: [{ mapping: "gpu0" }] }));

    const updated = await updateVm(ctx, state, resolve({ hostPci: [{ mapping: "gpu1" }] }));

    expect(progress).toContain(`VM ${state.vmid} on pve1: rebooting to apply hostpci0`);
    expect(updated).toMatchObject({ hostPci: [{ mapping: "gpu1" }], pendingChanges: [] });
    expect(sim.model.vms.get(state.vmid)?.pciDevices).toEqual(["0000:02:00.0"]);
    await deleteVm(ctx, updated);
  });

  it("refuses the create before the clone when the mapping has no entry for the node", async () => {
    const before = sim.model.vms.size;
    await expect(
      createVm(ctx, resolve({ node: "pve2", hostPci: [{ mapping: "gpu0" }] })),
    ).rejects.toThrow(
      /hostPci\[0\]\.mapping: .*"gpu0" has no entry for node pve2 \(it has: pve1\)/,
    );
    expect(sim.model.vms.size).toBe(before);
  });
});
