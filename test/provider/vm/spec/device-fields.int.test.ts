import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildContext } from "../../../../provider/pve/connection";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import { readVm } from "../../../../provider/vm/operations/read";
import { updateVm } from "../../../../provider/vm/operations/update";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { startSimulator, type Simulator } from "../../../../simulator";

/** The emulated devices on a VM the simulator runs, over HTTP. */

const resolve = (devices: Record<string, unknown>) => {
  const checked = checkVm(
    {},
    {
      identity: { project: "int", stack: "devices", name: "vm" },
      node: "pve1",
      template: 9000,
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
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": sim.apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  progress = [];
  ctx = {
    ...buildContext({ get: (key) => config[key] }),
    progress: (m) => progress.push(m),
    warn: () => undefined,
  };
});
afterEach(() => sim.close());

describe("the device inputs", () => {
  it("creates the VM with a watchdog and reads it back as written", async () => {
    const inputs = resolve({ watchdog: { model: "ib700", action: "reset" } });
    const state = await createVm(ctx, inputs);

    expect(sim.model.vms.get(state.vmid)?.config["watchdog"]).toBe("model=ib700,action=reset");
    expect((await readVm(ctx, state))?.watchdog).toEqual({ model: "ib700", action: "reset" });
    await deleteVm(ctx, state);
  });

  it("reboots a running VM to apply a watchdog change, which PVE keeps pending", async () => {
    const state = await createVm(ctx, resolve({ watchdog: { model: "i6300esb" } }));

    const updated = await updateVm(ctx, state, resolve({ watchdog: { model: "ib700" } }));

    expect(progress).toContain(`VM ${state.vmid} on pve1: configuring watchdog`);
    expect(progress).toContain(`VM ${state.vmid} on pve1: rebooting to apply watchdog`);
    expect(updated).toMatchObject({ watchdog: { model: "ib700" }, pendingChanges: [] });
    await deleteVm(ctx, updated);
  });

  it("creates the VM with an RNG beside the watchdog, and reboots to apply a new source", async () => {
    const devices = {
      watchdog: { model: "ib700" },
      rng: { source: "/dev/urandom", maxBytes: 2048 },
    };
    const state = await createVm(ctx, resolve(devices));
    expect(sim.model.vms.get(state.vmid)?.config["rng0"]).toBe(
      "source=/dev/urandom,max_bytes=2048",
    );
    expect((await readVm(ctx, state))?.rng).toEqual({ source: "/dev/urandom", maxBytes: 2048 });

    const rng = { source: "/dev/random", maxBytes: 2048 };
    const updated = await updateVm(ctx, state, resolve({ ...devices, rng }));

    expect(progress).toContain(`VM ${state.vmid} on pve1: rebooting to apply rng0`);
    expect(updated).toMatchObject({ rng, pendingChanges: [] });
    await deleteVm(ctx, updated);
  });
});
