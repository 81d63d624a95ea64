import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClonedVm, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

beforeEach(async () => {
  ({ sim, api } = await startWithClonedVm());
});
afterEach(async () => {
  await api.close();
  await sim.close();
});

/** The guest's NIC once it booted (polled for up to 5 s). */
async function guestNic(name: string) {
  for (let i = 0; i < 500; i += 1) {
    const found = sim.model.vms.get(100)?.guest.interfaces?.find((nic) => nic.name === name);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return undefined;
}

const MAC_FORM = /^virtio=(BC:24:11(?::[0-9A-F]{2}){3}),bridge=vmbr0,firewall=0$/;

describe("model/nic-format over HTTP", () => {
  it("stores a model= NIC as <model>=<generated MAC>, and the guest reports that MAC", async () => {
    await api.putConfig("pve1", 100, { net0: "model=virtio,bridge=vmbr0,firewall=0" });
    const net0 = String((await api.vmConfig("pve1", 100))["net0"]);
    const mac = MAC_FORM.exec(net0)?.[1];
    expect(mac).toBeDefined();
    await api.waitTask(
      "pve1",
      String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
    );
    const eth0 = await guestNic("eth0");
    expect(eth0?.["hardware-address"]).toBe(mac?.toLowerCase());
  });

  it("renders the key form on create as on a config write", async () => {
    const upid = data(
      await api.call("POST", "/nodes/pve1/qemu", {
        vmid: 120,
        net0: "bridge=vmbr0,model=e1000,macaddr=BC:24:11:AA:BB:CC,tag=7",
      }),
    );
    expect((await api.waitTask("pve1", String(upid)))["exitstatus"]).toBe("OK");
    expect((await api.vmConfig("pve1", 120))["net0"]).toBe(
      "e1000=BC:24:11:AA:BB:CC,bridge=vmbr0,tag=7",
    );
  });
});
