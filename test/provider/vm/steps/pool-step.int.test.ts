import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import { versionProfile } from "../../../../simulator/model/versions";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import { diffVm } from "../../../../provider/vm/operations/diff";
import { readVm } from "../../../../provider/vm/operations/read";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { updateVm } from "../../../../provider/vm/operations/update";
import { buildContext } from "../../../../provider/pve/connection";
import type { VmState } from "../../../../provider/vm/state/vm-state";
import { TestClient, data } from "../../../simulator/support/client";

const base = {
  identity: { project: "int", stack: "test", name: "pooled" },
  node: "pve1",
  template: 9000,
  waitForIp: false,
};

function resolve(extra: Record<string, unknown> = {}): ResolvedInputs {
  const { inputs, failures } = checkVm({}, { ...base, ...extra });
  expect(failures).toEqual([]);
  return inputs as ResolvedInputs;
}

let sim: Simulator;
let ctx: OperationContext;
let admin: TestClient;

function contextFor(apiToken: string): OperationContext {
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  return buildContext({ get: (key) => config[key] });
}

/** The pool PVE lists the VM in, as an admin reads `/cluster/resources`. */
async function poolOf(vmid: number): Promise<unknown> {
  const rows = data(await admin.get("/cluster/resources?type=vm")) as Record<string, unknown>[];
  return rows.find((row) => row["vmid"] === vmid)?.["pool"];
}

async function membersOf(poolid: string): Promise<unknown[]> {
  const pool = data(await admin.get(`/pools/${poolid}`)) as { members: { vmid?: number }[] };
  return pool.members.map((member) => member.vmid);
}

beforeEach(async () => {
  sim = await startSimulator({ guestBootMs: 20 });
  admin = new TestClient(sim);
  for (const poolid of ["web", "db", "other"]) await admin.call("POST", "/pools", { poolid });
  ctx = contextFor(sim.apiToken);
  vi.spyOn(console, "log").mockImplementation(() => undefined);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await admin.close();
  await sim.close();
});

describe("the pool of a VM", () => {
  it("is joined by the clone itself, read back, and a VM taken out of it is drift that update repairs", async () => {
    const inputs = resolve({ pool: "web" });
    const created = await createVm(ctx, inputs);
    // The VMID probe's listing only: a clone that joined the pool needs no fresh one to check.
    const listings = sim.requestLog.filter((entry) => entry.path === "/cluster/resources");
    expect(listings).toHaveLength(1);
    expect(created.pool).toBe("web");
    expect(await poolOf(created.vmid)).toBe("web");
    // The clone put it there: nothing wrote the pool's members.
    const poolWrites = sim.requestLog.filter(
      (entry) => entry.method === "PUT" && entry.path.startsWith("/pools"),
    );
    expect(poolWrites).toEqual([]);

    const read = (await readVm(ctx, created)) as VmState;
    expect(diffVm(read as Record<string, unknown>, inputs).changes).toBe(false);

    await admin.call("PUT", "/pools/web", { vms: String(created.vmid), delete: 1 });
    // A refresh is a new provider process: it starts without a listing.
    ctx.api.invalidateClusterVms?.();
    const drifted = (await readVm(ctx, created)) as VmState;
    expect(drifted.pool).toBeUndefined();
    expect(diffVm(drifted as Record<string, unknown>, inputs).changed).toEqual(["pool"]);

    const repaired = await updateVm(ctx, drifted, inputs);
    expect(repaired.pool).toBe("web");
    expect(await membersOf("web")).toEqual([created.vmid]);

    await deleteVm(ctx, repaired);
    expect(await membersOf("web")).toEqual([]);
  });

  it("moves to another pool, and leaves the pool when the program drops it", async () => {
    const created = await createVm(ctx, resolve({ pool: "web" }));
    expect(diffVm(created as Record<string, unknown>, resolve({ pool: "db" })).changed).toEqual([
      "pool",
    ]);
    const moved = await updateVm(ctx, created, resolve({ pool: "db" }));
    expect(moved.pool).toBe("db");
    expect([await membersOf("web"), await membersOf("db")]).toEqual([[], [created.vmid]]);

    // Dropping the input is a change, unlike inputs whose removal leaves the VM as it is.
    expect(diffVm(moved as Record<string, unknown>, resolve()).changed).toEqual(["pool"]);
    const dropped = await updateVm(ctx, moved, resolve());
    expect(dropped.pool).toBeUndefined();
    expect(await poolOf(created.vmid)).toBeUndefined();
    expect(await membersOf("db")).toEqual([]);
    await deleteVm(ctx, dropped);
  });

  it("leaves alone a pool the program never named", async () => {
    const created = await createVm(ctx, resolve());
    await admin.call("PUT", "/pools/other", { vms: String(created.vmid) });
    const read = (await readVm(ctx, created)) as VmState;
    expect(read.pool).toBeUndefined();
    const updated = await updateVm(ctx, read, resolve({ tags: ["kept"] }));
    expect(updated.pool).toBeUndefined();
    expect(await membersOf("other")).toEqual([created.vmid]);
    await deleteVm(ctx, updated);
  });

  it("refuses a pool that does not exist at the clone, leaving no VM, and creates the VM once the pool exists", async () => {
    const inputs = resolve({ pool: "missing" });
    const failed = await createVm(ctx, inputs).catch((error: unknown) => error);
    expect(String(failed)).toContain(
      "resource pool 'missing' does not exist. Create it (pveum pool add missing) or set pool to an existing pool.",
    );
    expect([...sim.model.vms.values()].filter((vm) => !vm.config["template"])).toEqual([]);

    await admin.call("POST", "/pools", { poolid: "missing" });
    const created = await createVm(ctx, inputs);
    expect(await membersOf("missing")).toEqual([created.vmid]);
    await deleteVm(ctx, created);
  });

  it("says to create a pool that does not exist when an update moves the VM there, and finishes the move once it does", async () => {
    const created = await createVm(ctx, resolve({ pool: "web" }));
    const failed = await updateVm(ctx, created, resolve({ pool: "later" })).catch(
      (error: unknown) => error,
    );
    expect(String(failed)).toContain(
      `VM ${created.vmid} on pve1: joining pool later failed: resource pool 'later' does not exist. Create it (pveum pool add later) or set pool to an existing pool.`,
    );
    expect(await poolOf(created.vmid)).toBeUndefined();

    await admin.call("POST", "/pools", { poolid: "later" });
    const moved = await updateVm(ctx, created, resolve({ pool: "later" }));
    expect(moved.pool).toBe("later");
    expect(await membersOf("later")).toEqual([created.vmid]);
    await deleteVm(ctx, moved);
  });

  it("names the missing privilege when a token may not change the new pool, and the next update after the fix finishes the move", async () => {
    const everything = versionProfile(undefined).privileges.filter((p) => p !== "Pool.Allocate");
    const token = sim.addToken("deploy@pve!pools", [
      { path: "/", privileges: everything },
      { path: "/pool/web", privileges: ["Pool.Allocate"] },
    ]);
    const limited = contextFor(token);
    const created = await createVm(limited, resolve({ pool: "web" }));

    const failed = await updateVm(limited, created, resolve({ pool: "db" })).catch(
      (error: unknown) => error,
    );
    expect(String(failed)).toContain(
      `VM ${created.vmid} on pve1: joining pool db failed: PUT /pools/db was denied: the API token deploy@pve!pools lacks Pool.Allocate on /pool/db.`,
    );
    // It left web before PVE refused db: in no pool, which a refresh shows.
    expect(await poolOf(created.vmid)).toBeUndefined();
    const read = (await readVm(limited, created)) as VmState;
    expect(read.pool).toBeUndefined();

    // Granted the privilege (here: the admin's token), the next update finishes the move.
    const finished = await updateVm(ctx, read, resolve({ pool: "db" }));
    expect(finished.pool).toBe("db");
    expect(await membersOf("db")).toEqual([created.vmid]);
    await deleteVm(ctx, finished);
    expect(await membersOf("db")).toEqual([]);
  });
});
