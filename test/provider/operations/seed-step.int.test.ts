import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator } from "../../../simulator";
import type { OperationContext } from "../../../provider/context";
import { checkVm } from "../../../provider/operations/check";
import { createVm } from "../../../provider/operations/create";
import { deleteVm } from "../../../provider/operations/delete";
import type { ResolvedInputs } from "../../../provider/operations/resolved-inputs";
import { buildContext } from "../../../provider/runtime";

const inputs = checkVm(
  {},
  { identity: { project: "int", stack: "seed", name: "web" }, node: "pve1", template: 9000 },
).inputs as ResolvedInputs;

describe("seed-step against the simulator", () => {
  let sim: Simulator;
  let ctx: OperationContext;
  beforeAll(async () => {
    sim = await startSimulator({ guestBootMs: 20 });
    const config: Record<string, string> = {
      "proxmox:endpoint": sim.url,
      "proxmox:apiToken": sim.apiToken,
      "proxmox:caCert": sim.caCertPem,
    };
    ctx = buildContext({ get: (key) => config[key] });
    vi.spyOn(console, "log").mockImplementation(() => undefined);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await sim.close();
  });

  const isos = () => sim.model.volumes("pve1", "local").map((v) => v.volid);
  const contentListings = () =>
    sim.requestLog.filter((r) => r.method === "GET" && /\/storage\/local\/content$/.test(r.path))
      .length;

  it("deletes the seed a VM deleted outside Pulumi left behind when the VM is recreated", async () => {
    sim.clearRequestLog();
    const first = await createVm(ctx, inputs);
    const listingsForFirst = contentListings();
    expect(isos()).toEqual([first.seedVolid]);

    sim.faults.deleteVm(first.vmid);
    expect(isos()).toEqual([first.seedVolid]);

    sim.clearRequestLog();
    const second = await createVm(ctx, inputs);
    expect(second.seedVolid).not.toBe(first.seedVolid);
    expect(isos()).toEqual([second.seedVolid]);
    // The stale seed was found in the listing the upload check makes anyway.
    expect(contentListings()).toBe(listingsForFirst);

    await deleteVm(ctx, second);
    expect(isos()).toEqual([]);
    expect([...sim.model.vms.keys()].filter((vmid) => vmid < 9000)).toEqual([]);
  });
});
