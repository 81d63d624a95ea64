import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClonedVm, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

afterEach(async () => {
  await api.close();
  await sim.close();
});

/** Starts VM `vmid` on pve1 and waits: the task's exit status. */
async function start(vmid: number): Promise<unknown> {
  const upid = data(await api.call("POST", `/nodes/pve1/qemu/${vmid}/status/start`));
  return (await api.waitTask("pve1", String(upid)))["exitstatus"];
}

async function cloneWith(vmid: number, config: Record<string, string>): Promise<void> {
  const upid = data(await api.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: vmid }));
  await api.waitTask("pve1", String(upid));
  expect((await api.putConfig("pve1", vmid, config)).status).toBe(200);
}

describe("model/host-devices", () => {
  it("fails the second start of one mapped GPU, naming the device and the VM that holds it", async () => {
    ({ sim, api } = await startWithClonedVm());
    sim.faults.setMapping("pci", "gpu0", { map: ["node=pve1,path=0000:01:00.0,id=10de:2204"] });
    await cloneWith(101, { hostpci0: "mapping=gpu0" });
    expect((await api.putConfig("pve1", 100, { hostpci0: "mapping=gpu0" })).status).toBe(200);

    expect(await start(100)).toBe("OK");
    expect(await start(101)).toBe("PCI device '0000:01:00.0' already in use by VMID '100'");
    expect(sim.model.vms.get(101)?.status).toBe("stopped");

    const stop = data(await api.call("POST", "/nodes/pve1/qemu/100/status/stop"));
    await api.waitTask("pve1", String(stop));
    expect(await start(101)).toBe("OK");
  });

  it("takes the next free device of a mapping that lists several", async () => {
    ({ sim, api } = await startWithClonedVm());
    sim.faults.setMapping("pci", "gpus", {
      map: ["node=pve1,path=0000:01:00.0,id=10de:2204", "node=pve1,path=0000:02:00.0,id=10de:2204"],
    });
    await cloneWith(101, { hostpci0: "mapping=gpus" });
    await api.putConfig("pve1", 100, { hostpci0: "mapping=gpus" });
    expect([await start(100), await start(101)]).toEqual(["OK", "OK"]);
    expect(sim.model.vms.get(101)?.pciDevices).toEqual(["0000:02:00.0"]);
  });

  it("fails the start on a node the mapping has no entry for, as PVE words it per type", async () => {
    ({ sim, api } = await startWithClonedVm());
    sim.faults.setMapping("pci", "gpu0", { map: ["node=pve2,path=0000:01:00.0,id=10de:2204"] });
    sim.faults.setMapping("dir", "share", { map: ["node=pve2,path=/srv/share"] });
    await api.putConfig("pve1", 100, { hostpci0: "mapping=gpu0" });
    expect(await start(100)).toBe("PCI device mapping not found for 'gpu0'");
    await api.putConfig("pve1", 100, { delete: "hostpci0", virtiofs0: "share" });
    expect(await start(100)).toBe("No directory mapping for node pve1.");
  });
});
