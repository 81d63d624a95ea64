import { describe, expect, it } from "vitest";
import { data } from "../support/client.js";
import { useSimulator } from "../support/use-simulator.js";

const { sim, api } = useSimulator({ clonedVm: true });

type Row = Record<string, unknown>;

describe("routes/pools", () => {
  it("creates a pool, adds a VM and a storage, and lists them as members", async () => {
    expect((await api.call("POST", "/pools", { poolid: "ci", comment: "CI VMs" })).status).toBe(
      200,
    );
    await api.call("PUT", "/pools/ci", { vms: "100", storage: "shared" });
    expect(data(await api.get("/pools"))).toEqual([{ poolid: "ci", comment: "CI VMs" }]);
    const pool = data(await api.get("/pools/ci")) as { comment: string; members: Row[] };
    expect(pool.comment).toBe("CI VMs");
    expect(pool.members.map((m) => m["id"])).toEqual(["qemu/100", "storage/pve1/shared"]);
    expect(pool.members[0]).toMatchObject({ name: "web", node: "pve1", pool: "ci" });
    const filtered = data(await api.get("/pools?poolid=ci&type=qemu")) as Row[];
    expect((filtered[0]?.["members"] as Row[]).map((m) => m["vmid"])).toEqual([100]);
    const resources = data(await api.get("/cluster/resources?type=vm")) as Row[];
    expect(resources.find((r) => r["vmid"] === 100)?.["pool"]).toBe("ci");
  });

  it("refuses to delete a pool with members with PVE's text, and deletes it once empty", async () => {
    await api.call("POST", "/pools", { poolid: "ci" });
    await api.call("PUT", "/pools/ci", { vms: "100" });
    const refused = await api.call("DELETE", "/pools/ci");
    expect([refused.status, refused.statusText]).toEqual([
      500,
      "delete pool failed: pool 'ci' is not empty (contains VM 100)",
    ]);
    expect(data(await api.get("/pools"))).toEqual([{ poolid: "ci" }]);
    await api.call("PUT", "/pools/ci", { vms: "100", delete: 1 });
    expect((await api.call("DELETE", "/pools/ci")).status).toBe(200);
    expect(data(await api.get("/pools"))).toEqual([]);
  });

  it("names the conflict when a pool exists, a VM is in another pool, or is no member", async () => {
    await api.call("POST", "/pools", { poolid: "a" });
    await api.call("POST", "/pools", { poolid: "b" });
    const again = await api.call("POST", "/pools", { poolid: "a" });
    expect(again.statusText).toBe("create pool failed: pool 'a' already exists");
    await api.call("PUT", "/pools/a", { vms: "100" });
    const taken = await api.call("PUT", "/pools/b", { vms: "100" });
    expect(taken.statusText).toBe("update pools failed: VM 100 belongs to pool 'a'");
    expect((await api.call("PUT", "/pools/b", { vms: "100", "allow-move": 1 })).status).toBe(200);
    const notMember = await api.call("PUT", "/pools/a", { vms: "100", delete: 1 });
    expect(notMember.statusText).toBe("update pools failed: VM 100 is not a pool member");
    const missing = await api.get("/pools/nope");
    expect(missing.statusText).toBe("pool 'nope' does not exist");
  });

  it("takes a destroyed VM out of its pool", async () => {
    await api.call("POST", "/pools", { poolid: "ci" });
    await api.call("PUT", "/pools/ci", { vms: "100" });
    await api.waitTask("pve1", String(data(await api.call("DELETE", "/nodes/pve1/qemu/100"))));
    expect((data(await api.get("/pools/ci")) as { members: Row[] }).members).toEqual([]);
    expect((await api.call("DELETE", "/pools/ci")).status).toBe(200);
  });

  it("clones into a pool, allowed by VM.Allocate on the pool alone", async () => {
    await api.call("POST", "/pools", { poolid: "ci" });
    const ops = api.withToken(
      sim.addToken("ops@pve!pool", [
        { path: "/vms/9000", privileges: ["VM.Clone", "VM.Audit"] },
        { path: "/pool/ci", privileges: ["VM.Allocate"] },
        { path: "/storage", privileges: ["Datastore.AllocateSpace"] },
        { path: "/sdn", privileges: ["SDN.Use"] },
      ]),
    );
    const denied = await ops.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 101 });
    expect([denied.status, denied.statusText]).toEqual([403, "Permission check failed"]);
    const upid = data(
      await ops.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 101, pool: "ci" }),
    );
    expect((await api.waitTask("pve1", String(upid)))["exitstatus"]).toBe("OK");
    const members = (data(await api.get("/pools/ci")) as { members: Row[] }).members;
    expect(members.map((m) => m["vmid"])).toEqual([101]);
    const unknown = await api.call("POST", "/nodes/pve1/qemu/9000/clone", {
      newid: 102,
      pool: "nope",
    });
    expect(unknown.statusText).toBe("Permission check failed (pool 'nope' does not exist)");
    expect(sim.model.vms.has(102)).toBe(false);
    await ops.close();
  });

  it("needs Pool.Allocate on the pool to create, change or delete it", async () => {
    const ro = api.withToken(
      sim.addToken("ops@pve!ro", [{ path: "/vms", privileges: ["VM.Audit"] }]),
    );
    const denied = await ro.call("POST", "/pools", { poolid: "x" });
    expect(denied.statusText).toBe("Permission check failed (/pool/x, Pool.Allocate)");
    expect(data(await api.get("/pools"))).toEqual([]);
    await ro.close();
  });
});
