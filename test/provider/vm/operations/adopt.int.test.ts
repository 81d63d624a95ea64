import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { readVm } from "../../../../provider/vm/operations/read";
import { updateVm } from "../../../../provider/vm/operations/update";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { simulatorContext } from "../../../support/test-context";
import { TestClient } from "../../../simulator/support/client";

const resolve = (name: string, vmid: number, extra: Record<string, unknown> = {}) =>
  checkVm(
    {},
    { identity: { project: "int", stack: "adopt", name }, node: "pve1", adopt: { vmid }, ...extra },
  ).inputs as ResolvedInputs;

describe("adopt: { vmid } (over HTTP)", () => {
  let sim: Simulator;
  let ctx: OperationContext;
  let api: TestClient;

  beforeAll(async () => {
    sim = await startSimulator({ listingLagMs: 0 });
    ctx = simulatorContext(sim);
    api = new TestClient(sim);
  });
  afterAll(async () => {
    await api.close();
    await sim.close();
  });
  beforeEach(() => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    sim.clearRequestLog();
    return () => vi.restoreAllMocks();
  });

  async function legacyVm(vmid: number): Promise<Record<string, unknown>> {
    const res = await api.call("POST", "/nodes/pve1/qemu", {
      vmid,
      name: `legacy-${vmid}`,
      cores: 2,
      memory: 1024,
      scsi0: "local-lvm:4",
      net0: "virtio,bridge=vmbr0",
      description: "hand made",
    });
    await api.waitTask("pve1", (res.body as { data: string }).data);
    const config = await api.vmConfig("pve1", vmid);
    sim.clearRequestLog();
    return config;
  }
  const configWrites = () =>
    sim.requestLog.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

  it("writes the program's keys and the mark in one write, and a rerun finds its own mark", async () => {
    const before = await legacyVm(5001);
    const state = await createVm(ctx, resolve("web", 5001, { cores: 4 }));
    expect(state).toMatchObject({
      vmid: 5001,
      vmName: "legacy-5001",
      cores: 4,
      description: undefined,
    });
    expect(configWrites()).toEqual(["POST /nodes/pve1/qemu/5001/config"]);
    const after = await api.vmConfig("pve1", 5001);
    expect({
      ...after,
      cores: before["cores"],
      description: before["description"],
      digest: 0,
    }).toEqual({
      ...before,
      digest: 0,
    });
    expect(String(after["description"])).toMatch(
      /^hand made\n\npulumi-proxmox:\{.*"adoptedBy":\{"project":"int","stack":"adopt","name":"web"\}/,
    );

    // Killed after the write, before the engine saved the state: the next create finishes it.
    sim.clearRequestLog();
    const again = await createVm(ctx, resolve("web", 5001, { cores: 4 }));
    expect(again.vmid).toBe(5001);
    expect(configWrites()).toEqual([]);
  });

  it("updates only what the program changed and reads hand-made drift back", async () => {
    await legacyVm(5002);
    const state = await createVm(ctx, resolve("db", 5002, { cores: 2 }));
    await api.putConfig("pve1", 5002, { cores: 3 });
    const read = await readVm(ctx, state);
    expect(read?.cores).toBe(3);

    sim.clearRequestLog();
    const updated = await updateVm(ctx, state, resolve("db", 5002, { cores: 2, memory: 2048 }));
    expect(updated).toMatchObject({ cores: 2, memory: 2048 });
    expect(configWrites()).toEqual(["POST /nodes/pve1/qemu/5002/config"]);
    const config = await api.vmConfig("pve1", 5002);
    expect(config).toMatchObject({ net0: expect.stringContaining("bridge=vmbr0") });
    expect(String(config["description"])).toMatch(/^hand made\n\n/);
  });

  it("refuses a second resource of the stack, naming the one that adopted the VM", async () => {
    await legacyVm(5003);
    await createVm(ctx, resolve("first", 5003, { cores: 2 }));
    sim.clearRequestLog();
    await expect(createVm(ctx, resolve("second", 5003, { cores: 3 }))).rejects.toThrow(
      "VM 5003 on node pve1 is adopted by another ProxmoxVm of this stack (first)",
    );
    expect(configWrites()).toEqual([]);
  });
});
