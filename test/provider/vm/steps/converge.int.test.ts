import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import { readVm } from "../../../../provider/vm/operations/read";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { updateVm } from "../../../../provider/vm/operations/update";
import { buildContext } from "../../../../provider/pve/connection";
import { startSimulator, type Simulator } from "../../../../simulator";

/** CPU, memory, hot-plug and the lifecycle options on a VM the simulator runs, over HTTP. */

const compute = {
  cpu: { type: "host", sockets: 1, cores: 2, numa: true, units: 200 },
  memory: { sizeMiB: 2048, balloonMiB: 1024, shares: 500 },
  hotplug: ["network", "disk", "cpu"],
  onBoot: true,
  startup: { order: 2, up: 30 },
  protection: true,
};

const resolve = (extra: Record<string, unknown> = {}) => {
  const checked = checkVm(
    {},
    {
      identity: { project: "int", stack: "cpumem", name: "vm" },
      node: "pve1",
      template: 9000,
      ...compute,
      ...extra,
    },
  );
  expect(checked.failures).toEqual([]);
  return checked.inputs as ResolvedInputs;
};

let sim: Simulator;
let ctx: OperationContext;
let progress: string[];
let warnings: string[];

beforeEach(async () => {
  sim = await startSimulator();
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": sim.apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  progress = [];
  warnings = [];
  ctx = {
    ...buildContext({ get: (key) => config[key] }),
    progress: (m) => progress.push(m),
    warn: (m) => warnings.push(m),
  };
});
afterEach(() => sim.close());

describe("converge (CPU, memory and lifecycle options)", () => {
  it("creates the VM with every key the program sets and reads them back as written", async () => {
    const state = await createVm(ctx, resolve());

    const config = sim.model.vms.get(state.vmid)?.config;
    // PVE 8 stores memory as a property string.
    expect(String(config?.["memory"])).toBe("2048");
    expect(config).toMatchObject({
      cpu: "host",
      sockets: 1,
      cores: 2,
      numa: 1,
      cpuunits: 200,
      shares: 500,
      balloon: 1024,
      hotplug: "network,disk,cpu",
      onboot: 1,
      startup: "order=2,up=30",
      protection: 1,
    });
    const read = await readVm(ctx, state);
    expect(read).toMatchObject({ ...compute, hotplug: ["cpu", "disk", "network"] });
    expect(read?.pendingChanges).toEqual([]);
    await deleteVm(ctx, state);
  });

  it("leaves a cores change pending under rebootPolicy never, says so, reports it, and applies it once allowed", async () => {
    const state = await createVm(ctx, resolve());
    const cpu = { ...compute.cpu, cores: 4 };

    const waiting = await updateVm(ctx, state, resolve({ cpu, rebootPolicy: "never" }));

    expect(warnings).toEqual([
      `VM ${state.vmid} on pve1: cores wait for the next reboot (rebootPolicy is "never"); ` +
        "they stay in pendingChanges and show as drift until the VM reboots.",
    ]);
    expect(waiting.pendingChanges).toEqual(["cores"]);
    // What the VM runs with: the refresh shows the change as drift until the reboot.
    expect(waiting.cpu).toMatchObject({ cores: 2 });
    expect((await readVm(ctx, waiting))?.pendingChanges).toEqual(["cores"]);

    // The next up with reboots allowed writes nothing new and reboots for the pending change.
    const applied = await updateVm(ctx, waiting, resolve({ cpu }));

    expect(progress).toContain(`VM ${state.vmid} on pve1: rebooting to apply cores`);
    expect(applied.pendingChanges).toEqual([]);
    expect(applied.cpu).toMatchObject({ cores: 4 });
    expect(sim.model.vms.get(state.vmid)?.config["cores"]).toBe(4);
    await deleteVm(ctx, applied);
  });

  it("hot-plugs vCPUs, CPU units and shares into the running VM without a reboot", async () => {
    const state = await createVm(ctx, resolve({ cpu: { ...compute.cpu, vcpus: 1 } }));

    const updated = await updateVm(
      ctx,
      state,
      resolve({
        cpu: { ...compute.cpu, vcpus: 2, units: 300 },
        memory: { ...compute.memory, shares: 800 },
      }),
    );

    expect(progress.filter((line) => line.includes("rebooting"))).toEqual([]);
    expect(updated).toMatchObject({
      cpu: { vcpus: 2, units: 300 },
      memory: { shares: 800 },
      pendingChanges: [],
    });
    await deleteVm(ctx, updated);
  });

  it("reboots for a memory size change when memory is not in hotplug", async () => {
    const state = await createVm(ctx, resolve());

    const updated = await updateVm(
      ctx,
      state,
      resolve({ memory: { ...compute.memory, sizeMiB: 4096 } }),
    );

    expect(progress).toContain(`VM ${state.vmid} on pve1: rebooting to apply memory`);
    expect(updated).toMatchObject({ memory: { sizeMiB: 4096 }, pendingChanges: [] });
    await deleteVm(ctx, updated);
  });

  it("reports the keys it writes by the inputs as written, not as list elements", async () => {
    const state = await createVm(ctx, resolve());
    progress = [];

    await updateVm(
      ctx,
      state,
      resolve({ memory: 3072, cpu: { ...compute.cpu, cores: 3 }, rebootPolicy: "never" }),
    );

    expect(progress).toContain(`VM ${state.vmid} on pve1: configuring memory, cores (cpu)`);
    await deleteVm(ctx, state);
  });

  it("changes onBoot, startup and protection on the running VM without a reboot", async () => {
    const state = await createVm(ctx, resolve());

    const updated = await updateVm(
      ctx,
      state,
      resolve({ onBoot: false, startup: { order: 1, down: 60 }, protection: false }),
    );

    expect(progress.filter((line) => line.includes("rebooting"))).toEqual([]);
    expect(updated).toMatchObject({
      onBoot: false,
      startup: { order: 1, down: 60 },
      protection: false,
      pendingChanges: [],
    });
    expect(sim.model.vms.get(state.vmid)?.config).toMatchObject({
      onboot: 0,
      startup: "order=1,down=60",
      protection: 0,
    });
    await deleteVm(ctx, updated);
  });

  it("destroys a protected VM, turning protection off first and saying so", async () => {
    const state = await createVm(ctx, resolve());

    await deleteVm(ctx, state);

    expect(progress).toContain(`VM ${state.vmid} on pve1: turning protection off to destroy it`);
    expect(sim.model.vms.has(state.vmid)).toBe(false);
    expect(sim.model.volumes("pve1", "local")).toEqual([]);
  });

  it("finishes the delete of a protected VM whose destroy failed, on the next delete", async () => {
    const state = await createVm(ctx, resolve());
    sim.faults.failTasks({ type: "qmdestroy", id: String(state.vmid), count: 1 }, "simulated");

    await expect(deleteVm(ctx, state)).rejects.toMatchObject({ code: "TASK_FAILED" });
    expect(sim.model.vms.get(state.vmid)?.config["protection"]).toBeUndefined();

    await deleteVm(ctx, state);
    expect(sim.model.vms.has(state.vmid)).toBe(false);
    expect(sim.model.volumes("pve1", "local")).toEqual([]);
  });
});
