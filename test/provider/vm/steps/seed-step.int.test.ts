import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import { updateVm } from "../../../../provider/vm/operations/update";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { buildContext } from "../../../../provider/pve/connection";
import { parseVmState } from "../../../../provider/vm/state/vm-state";
import { VmInitError } from "../../../../provider/vm/init-error";

const news = {
  identity: { project: "int", stack: "seed", name: "web" },
  node: "pve1",
  template: 9000,
};
const inputs = checkVm({}, news).inputs as ResolvedInputs;

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

  it("names the VM and node when the new seed's upload is refused, and the next update finishes", async () => {
    const vm = await createVm(ctx, inputs);
    const changed = checkVm({}, { ...news, cloudInit: { packages: ["curl"] } });
    sim.faults.failRequests(
      { method: "POST", path: /\/storage\/local\/upload$/ },
      403,
      "Permission check failed (/storage/local, Datastore.AllocateTemplate)",
    );
    const refused = await updateVm(ctx, vm, changed.inputs as ResolvedInputs).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(VmInitError);
    const cause = (refused as VmInitError).cause;
    expect(cause).toMatchObject({ code: "FORBIDDEN", context: { node: "pve1", vmid: vm.vmid } });
    expect(String(cause)).toMatch(
      new RegExp(`VM ${vm.vmid} on pve1: uploading seed .* failed: .*Datastore.AllocateTemplate`),
    );

    // What the engine does next: an update of the partial state the failed update recorded.
    const partial = parseVmState((refused as VmInitError).properties);
    const updated = await updateVm(ctx, partial, changed.inputs as ResolvedInputs);
    expect(isos()).toEqual([updated.seedVolid]);
    await deleteVm(ctx, updated);
    expect(isos()).toEqual([]);
    expect([...sim.model.vms.keys()].filter((vmid) => vmid < 9000)).toEqual([]);
  });

  it("names the VM and node when the seed listing fails", async () => {
    sim.faults.failRequests(
      { method: "GET", path: /\/storage\/local\/content$/ },
      500,
      "storage 'local' is not online",
    );
    const failed = await createVm(ctx, inputs).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(VmInitError);
    expect(String((failed as VmInitError).cause)).toMatch(
      /VM \d+ on pve1: listing the seeds on storage local failed: /,
    );

    // What the engine does next: an update of the partial state the failed create recorded.
    const partial = parseVmState((failed as VmInitError).properties);
    const finished = await updateVm(ctx, partial, inputs);
    expect(isos()).toEqual([finished.seedVolid]);
    await deleteVm(ctx, finished);
    expect(isos()).toEqual([]);
    expect([...sim.model.vms.keys()].filter((vmid) => vmid < 9000)).toEqual([]);
  });
});
