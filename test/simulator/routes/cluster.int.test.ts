import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClient, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

afterEach(async () => {
  await api.close();
  await sim.close();
});

describe("routes/cluster", () => {
  it("returns the next free VMID as a string and reserves nothing", async () => {
    ({ sim, api } = await startWithClient());
    expect((await api.get("/cluster/nextid")).body).toEqual({ data: "100" });
    expect((await api.get("/cluster/nextid")).body).toEqual({ data: "100" });
    expect((await api.get("/cluster/nextid?vmid=150")).body).toEqual({ data: "150" });
  });

  it("answers 400 'VM <id> already exists' for a used vmid", async () => {
    ({ sim, api } = await startWithClient());
    const res = await api.get("/cluster/nextid?vmid=9000");
    expect([res.status, res.statusText]).toEqual([400, "Parameter verification failed."]);
    expect(res.body).toEqual({
      data: null,
      errors: { vmid: "VM 9000 already exists" },
      message: "Parameter verification failed.\n",
    });
  });

  it("lists a fresh clone as status unknown without name until the lag passes", async () => {
    // A lag of a minute holds the listing still however slow the machine, then it is lifted;
    // the clone's lock is live, and lasts the clone's 4 s.
    ({ sim, api } = await startWithClient({
      listingLagMs: 60_000,
      taskDurationsMs: { qmclone: 4000 },
    }));
    const upid = data(
      await api.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 120, name: "web" }),
    );
    const rows = data(await api.get("/cluster/resources?type=vm")) as Record<string, unknown>[];
    expect(rows.find((r) => r["vmid"] === 120)).toEqual({
      id: "qemu/120",
      vmid: 120,
      node: "pve1",
      type: "qemu",
      status: "unknown",
      lock: "clone",
    });
    expect(rows.find((r) => r["vmid"] === 9000)).toMatchObject({
      name: "debian-12-cloud",
      status: "stopped",
      template: 1,
    });
    await api.waitTask("pve1", String(upid));
    sim.faults.setListingLag(0);
    const later = data(await api.get("/cluster/resources?type=vm")) as Record<string, unknown>[];
    expect(later.find((r) => r["vmid"] === 120)).toMatchObject({
      name: "web",
      status: "stopped",
      template: 0,
    });
  });

  it("keeps showing the old status until the lag passes after a change", async () => {
    ({ sim, api } = await startWithClient({ listingLagMs: 0 }));
    sim.faults.setListingLag(60_000);
    sim.faults.setConfig(9000, { name: "renamed" });
    const row = () =>
      api
        .get("/cluster/resources?type=vm")
        .then((r) => (data(r) as Record<string, unknown>[]).find((x) => x["vmid"] === 9000));
    expect(await row()).toMatchObject({ name: "debian-12-cloud" });
    sim.faults.setListingLag(0);
    expect(await row()).toMatchObject({ name: "renamed" });
  });

  it("lists nodes and storages in /cluster/resources", async () => {
    ({ sim, api } = await startWithClient());
    const nodes = data(await api.get("/cluster/resources?type=node")) as Record<string, unknown>[];
    expect(nodes.map((n) => [n["id"], n["status"]])).toEqual([
      ["node/pve1", "online"],
      ["node/pve2", "online"],
    ]);
    const storages = data(await api.get("/cluster/resources?type=storage")) as Record<
      string,
      unknown
    >[];
    expect(storages.map((s) => s["id"])).toEqual([
      "storage/pve1/local",
      "storage/pve1/local-lvm",
      "storage/pve1/shared",
      "storage/pve2/local",
      "storage/pve2/local-lvm",
      "storage/pve2/shared",
    ]);
  });

  it("lists nodes with fingerprint and stats only with Sys.Audit", async () => {
    ({ sim, api } = await startWithClient());
    const full = data(await api.get("/nodes")) as Record<string, unknown>[];
    expect(full[0]).toMatchObject({
      node: "pve1",
      status: "online",
      type: "node",
      id: "node/pve1",
      level: "",
      maxcpu: 8,
    });
    expect(String(full[0]?.["ssl_fingerprint"])).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const limited = api.withToken(
      sim.addToken("audit@pve!ro", [{ path: "/vms", privileges: ["VM.Audit"] }]),
    );
    const rows = data(await limited.get("/nodes")) as Record<string, unknown>[];
    expect(Object.keys(rows[0] ?? {}).sort()).toEqual([
      "id",
      "level",
      "node",
      "ssl_fingerprint",
      "status",
      "type",
    ]);
    await limited.close();
  });

  it("filters VMs by VM.Audit in /cluster/resources and /nodes/{node}/qemu", async () => {
    ({ sim, api } = await startWithClient());
    const one = api.withToken(
      sim.addToken("ops@pve!one", [{ path: "/vms/9001", privileges: ["VM.Audit"] }]),
    );
    const rows = data(await one.get("/cluster/resources?type=vm")) as Record<string, unknown>[];
    expect(rows.map((r) => r["vmid"])).toEqual([9001]);
    expect(data(await one.get("/nodes/pve1/qemu"))).toEqual([]);
    await one.close();
  });

  it("reports the caller's effective permissions per path", async () => {
    ({ sim, api } = await startWithClient());
    const token = api.withToken(
      sim.addToken("ops@pve!perm", [
        { path: "/vms/100", privileges: ["VM.Audit", "VM.PowerMgmt"] },
        { path: "/storage/local", privileges: ["Datastore.Audit"], propagate: false },
      ]),
    );
    expect(data(await token.get("/access/permissions"))).toEqual({
      "/vms/100": { "VM.Audit": 1, "VM.PowerMgmt": 1 },
      "/storage/local": { "Datastore.Audit": 0 },
    });
    expect(data(await token.get("/access/permissions?path=/vms/100"))).toEqual({
      "/vms/100": { "VM.Audit": 1, "VM.PowerMgmt": 1 },
    });
    await token.close();
  });
});
