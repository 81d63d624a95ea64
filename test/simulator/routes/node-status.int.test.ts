import { describe, expect, it } from "vitest";
import { data } from "../support/client.js";
import { useSimulator } from "../support/use-simulator.js";

const { sim, api } = useSimulator();

type Row = Record<string, unknown>;

describe("routes/node-status", () => {
  it("reports a node's status with the same figures as its /nodes row", async () => {
    const status = data(await api.get("/nodes/pve1/status")) as Row;
    const row = (data(await api.get("/nodes")) as Row[]).find((r) => r["node"] === "pve1") ?? {};
    const memory = status["memory"] as Row;
    const rootfs = status["rootfs"] as Row;
    const cpuinfo = status["cpuinfo"] as Row;
    expect([memory["total"], memory["used"]]).toEqual([row["maxmem"], row["mem"]]);
    expect([rootfs["total"], rootfs["used"]]).toEqual([row["maxdisk"], row["disk"]]);
    expect([cpuinfo["cpus"], status["cpu"]]).toEqual([row["maxcpu"], row["cpu"]]);
    expect(Math.abs(Number(status["uptime"]) - Number(row["uptime"]))).toBeLessThanOrEqual(1);
    expect(status["pveversion"]).toMatch(/^pve-manager\/8\.4\.1\/[0-9a-f]{16}$/);
    expect(status["kversion"]).toMatch(/^Linux 6\.8\.\S+-pve #1 SMP/);
    expect(status["loadavg"]).toHaveLength(3);
    expect(Object.keys(status["swap"] as Row).sort()).toEqual(["free", "total", "used"]);
    expect(Number(rootfs["avail"])).toBe(Number(rootfs["total"]) - Number(rootfs["used"]));
  });

  it("needs Sys.Audit on the node, and answers for a node that is down with its status", async () => {
    const ro = api.withToken(
      sim.addToken("ops@pve!vm", [{ path: "/vms", privileges: ["VM.Audit"] }]),
    );
    const denied = await ro.get("/nodes/pve1/status");
    expect([denied.status, denied.statusText]).toEqual([
      403,
      "Permission check failed (/nodes/pve1, Sys.Audit)",
    ]);
    sim.faults.nodeDown("pve2", 595);
    expect((await api.get("/nodes/pve2/status")).status).toBe(595);
    await ro.close();
  });

  it("puts cgroup-mode on every online node row, even without Sys.Audit", async () => {
    const ro = api.withToken(
      sim.addToken("ops@pve!vm", [{ path: "/vms", privileges: ["VM.Audit"] }]),
    );
    const rows = data(await ro.get("/cluster/resources?type=node")) as Row[];
    expect(rows.map((r) => [r["node"], r["cgroup-mode"], r["maxmem"]])).toEqual([
      ["pve1", 2, undefined],
      ["pve2", 2, undefined],
    ]);
    await ro.close();
  });

  it("lists the cluster and each node in /cluster/status, with quorum from the nodes up", async () => {
    const rows = data(await api.get("/cluster/status")) as Row[];
    expect(rows.map((r) => [r["type"], r["id"]])).toEqual([
      ["cluster", "cluster"],
      ["node", "node/pve1"],
      ["node", "node/pve2"],
    ]);
    expect(rows[0]).toMatchObject({ nodes: 2, quorate: 1 });
    expect(rows[1]).toMatchObject({ name: "pve1", local: 1, online: 1, nodeid: 1 });
    sim.faults.nodeDown("pve2", 595);
    const down = data(await api.get("/cluster/status")) as Row[];
    expect([down[0]?.["quorate"], down[2]?.["online"]]).toEqual([0, 0]);
  });
});
