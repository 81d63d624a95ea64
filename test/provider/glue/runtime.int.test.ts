import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../simulator";
import { checkVm } from "../../../provider/vm/operations/check";
import { createVm } from "../../../provider/vm/operations/create";
import { deleteVm } from "../../../provider/vm/operations/delete";
import { readVm } from "../../../provider/vm/operations/read";
import type { ResolvedInputs } from "../../../provider/vm/steps/resolved-inputs";
import { updateVm } from "../../../provider/vm/operations/update";
import { buildContext } from "../../../provider/pve/connection";
import type { OperationContext } from "../../../provider/pve/context";

const resolve = (extra: Record<string, unknown>) =>
  checkVm(
    {},
    {
      identity: { project: "int", stack: "test", name: "vm" },
      node: "pve1",
      template: 9000,
      cores: 2,
      memory: 1024,
      ...extra,
    },
  ).inputs as ResolvedInputs;

describe("the operations over HTTP against the simulator", () => {
  let sim: Simulator;
  let ctx: OperationContext;
  beforeAll(async () => {
    sim = await startSimulator({ listingLagMs: 200 });
    const config: Record<string, string> = {
      "proxmox:endpoint": sim.url,
      "proxmox:apiToken": sim.apiToken,
      "proxmox:caCert": sim.caCertPem,
    };
    ctx = buildContext({ get: (key) => config[key] });
  });
  afterAll(() => sim.close());

  it("creates, reads, updates in place, re-seeds and deletes a VM, leaving nothing behind", async () => {
    const created = await createVm(ctx, resolve({ cloudInit: { packages: ["htop"] } }));
    expect(created).toMatchObject({ cores: 2, memory: 1024, started: true, currentNode: "pve1" });
    expect(created.ipv4Addresses[0]).toMatch(/^10\.10\.0\.\d+$/);
    expect(created.seedVolid).toMatch(/^local:iso\/pp-[0-9a-f]{12}-[0-9a-f]{12}\.iso$/);
    expect(sim.model.vms.get(created.vmid)?.config["description"]).toContain('"phase":"complete"');

    expect(await readVm(ctx, created)).toEqual(created);

    const resized = await updateVm(
      ctx,
      created,
      resolve({ cores: 4, cloudInit: { packages: ["htop"] } }),
    );
    expect(resized).toMatchObject({ vmid: created.vmid, cores: 4 });

    const reseeded = await updateVm(
      ctx,
      resized,
      resolve({ cores: 4, cloudInit: { packages: ["curl"] } }),
    );
    expect(reseeded.vmid).toBe(created.vmid);
    expect(reseeded.seedVolid).not.toBe(created.seedVolid);
    expect(sim.model.volumes("pve1", "local").map((v) => v.volid)).toEqual([reseeded.seedVolid]);

    await deleteVm(ctx, reseeded);
    expect(sim.model.vms.has(created.vmid)).toBe(false);
    expect(sim.model.volumes("pve1", "local")).toEqual([]);
    expect(await readVm(ctx, reseeded)).toBeUndefined();
  });

  it("deletes many VMs from one cluster listing, and one moved since from a fresh listing", async () => {
    const named = (name: string) =>
      checkVm(
        {},
        { identity: { project: "int", stack: "test", name }, node: "pve1", template: 9000 },
      ).inputs as ResolvedInputs;
    const created = await Promise.all(["a", "b", "c"].map((name) => createVm(ctx, named(name))));
    const [moved, other] = created;
    if (moved === undefined || other === undefined) throw new Error("three VMs were created");
    await readVm(ctx, other);
    // Moved behind the listing's back, and the listing (older than its freshness) kept.
    sim.faults.migrateVm(moved.vmid, "pve2");
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    sim.clearRequestLog();

    for (const state of created) await deleteVm(ctx, state);

    expect(created.filter((state) => sim.model.vms.has(state.vmid))).toEqual([]);
    const listings = sim.requestLog.filter((entry) => entry.path === "/cluster/resources");
    expect(listings).toHaveLength(1);
  });
});
