import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { updateVm } from "../../../../provider/vm/operations/update";
import { buildContext } from "../../../../provider/pve/connection";
import { startSimulator, type Simulator } from "../../../../simulator";

/** HA-managed VMs over HTTP: the CRM acts two seconds after the hastart/hastop task has ended. */

const resolve = (extra: Record<string, unknown> = {}) =>
  checkVm(
    {},
    {
      identity: { project: "int", stack: "ha", name: "vm" },
      node: "pve1",
      template: 9000,
      ...extra,
    },
  ).inputs as ResolvedInputs;

let sim: Simulator;
let ctx: OperationContext;
let progress: string[];

beforeEach(async () => {
  sim = await startSimulator({ haCrmDelayMs: 2_000 });
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": sim.apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  progress = [];
  ctx = { ...buildContext({ get: (key) => config[key] }), progress: (m) => progress.push(m) };
});
afterEach(() => sim.close());

describe("power-state (HA-managed VMs)", () => {
  it("deletes a running VM under HA leaving no VM, no seed and no HA resource", async () => {
    const state = await createVm(ctx, resolve());
    sim.faults.putUnderHa(state.vmid);
    expect(sim.model.vms.get(state.vmid)?.status).toBe("running");

    await deleteVm(ctx, state);

    expect(sim.model.vms.has(state.vmid)).toBe(false);
    expect(sim.model.volumes("pve1", "local")).toEqual([]);
    expect(sim.model.haResources()).toEqual([]);
    expect(progress).toContainEqual(
      expect.stringMatching(
        new RegExp(`^VM ${state.vmid} on pve1: waiting for HA to report it stopped \\(\\d+ s\\)$`),
      ),
    );
    const types = [...sim.model.tasks.values()]
      .filter((t) => t.id === String(state.vmid))
      .map((t) => t.type);
    expect(types).toEqual(expect.arrayContaining(["hastop", "qmstop", "qmdestroy"]));
  });

  it("times out naming the HA resource when HA never stops the VM, and the next delete finishes", async () => {
    const state = await createVm(ctx, resolve({ timeouts: { taskMs: 3_000 } }));
    sim.faults.putUnderHa(state.vmid);
    // Every CRM round that tries to stop the VM fails, as on a node whose LRM cannot stop it.
    sim.faults.failTasks(
      { type: "qmstop", id: String(state.vmid), count: 10 },
      "simulated LRM failure",
    );

    const failed = await deleteVm(ctx, state).catch((e: unknown) => e);

    expect(failed).toMatchObject({
      code: "TIMEOUT",
      message: expect.stringContaining(`HA resource vm:${state.vmid}`),
    });
    expect(sim.model.vms.get(state.vmid)?.status).toBe("running");
    expect(sim.model.volumes("pve1", "local")).toHaveLength(1);

    sim.faults.clear();
    sim.faults.stopVm(state.vmid);
    await deleteVm(ctx, state);
    expect(sim.model.vms.has(state.vmid)).toBe(false);
    expect(sim.model.volumes("pve1", "local")).toEqual([]);
    expect(sim.model.haResources()).toEqual([]);
  });

  it("starts a stopped VM under HA and returns only once it runs", async () => {
    const state = await createVm(ctx, resolve({ started: false }));
    sim.faults.putUnderHa(state.vmid, "stopped");
    expect(sim.model.vms.get(state.vmid)?.status).toBe("stopped");

    const started = await updateVm(ctx, state, resolve({ started: true }));

    expect(started.started).toBe(true);
    expect(sim.model.vms.get(state.vmid)?.status).toBe("running");
    expect(sim.model.haResources()).toEqual([
      expect.objectContaining({ sid: `vm:${state.vmid}`, state: "started" }),
    ]);
    const types = [...sim.model.tasks.values()]
      .filter((t) => t.id === String(state.vmid))
      .map((t) => t.type);
    expect(types).toEqual(expect.arrayContaining(["hastart", "qmstart"]));
  });

  it("shuts a VM under HA down and returns only once it is stopped", async () => {
    const state = await createVm(ctx, resolve({ waitForIp: false }));
    sim.faults.putUnderHa(state.vmid);

    await updateVm(ctx, state, resolve({ started: false, waitForIp: false }));

    expect(sim.model.vms.get(state.vmid)?.status).toBe("stopped");
    expect(sim.model.haResources()).toEqual([
      expect.objectContaining({ state: "stopped", crmState: "stopped" }),
    ]);
  });
});
