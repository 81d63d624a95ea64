import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import { buildContext } from "../../../../provider/pve/connection";
import type { OperationContext } from "../../../../provider/pve/context";
import { UNKNOWN } from "../../../../provider/inputs/unknown";
import { checkVm } from "../../../../provider/vm/operations/check";
import { bridgeFailures } from "../../../../provider/vm/steps/bridges";

const inputs = (extra: Record<string, unknown>) =>
  checkVm(
    {},
    {
      identity: { project: "int", stack: "bridges", name: "vm" },
      node: "pve1",
      template: 9000,
      ...extra,
    },
  ).inputs;

const contextOf = (sim: Simulator, token = sim.apiToken): OperationContext => {
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": token,
    "proxmox:caCert": sim.caCertPem,
  };
  return buildContext({ get: (key) => config[key] });
};

describe("bridgeFailures against the simulator", () => {
  let sim: Simulator;
  let ctx: OperationContext;
  beforeAll(async () => {
    sim = await startSimulator({
      bridges: { vmbr0: "10.10.0.0/24", vmbr1: "10.20.0.0/24" },
      nodes: [{ name: "pve1" }, { name: "pve2", bridges: ["vmbr0"] }],
    });
    ctx = contextOf(sim);
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    sim.faults.clear();
    sim.clearRequestLog();
  });

  it("names each NIC whose bridge the node lacks, as the program wrote it", async () => {
    const news = inputs({ node: "pve2", networks: [{ bridge: "vmbr0" }, { bridge: "vmbr1" }] });
    const failures = await bridgeFailures(async () => ctx, {}, news);
    expect(failures).toEqual([
      {
        property: "networks[1].bridge",
        reason:
          "bridge vmbr1 is not on node pve2, or the API token may not use it (bridges it can use " +
          "there: vmbr0). Set networks[1].bridge to one of them, create vmbr1 on pve2 (System → " +
          "Network), or, on PVE 8 and later, grant the token SDN.Use on /sdn/zones/localnetwork/vmbr1.",
      },
    ]);
    expect(
      await bridgeFailures(async () => ctx, {}, inputs({ networks: [{ bridge: "vmbr1" }] })),
    ).toEqual([]);
  });

  it("sends no request when node and bridges are as before, or not known yet", async () => {
    const before = inputs({ network: { bridge: "vmbr9" } });
    const now = inputs({ network: { bridge: "vmbr9" }, memory: 4096 });
    expect(await bridgeFailures(async () => ctx, before, now)).toEqual([]);
    const unknown = { ...inputs({}), networks: UNKNOWN };
    expect(await bridgeFailures(async () => ctx, {}, unknown)).toEqual([]);
    expect(sim.requestLog).toEqual([]);
  });

  it("names a bridge the token may not use, which PVE 8 leaves out of the node's list", async () => {
    const token = sim.addToken("deploy@pve!bridges", [
      { path: "/", privileges: ["Sys.Audit", "VM.Audit"] },
      { path: "/sdn/zones/localnetwork/vmbr0", privileges: ["SDN.Use"] },
    ]);
    const limited = contextOf(sim, token);
    const failures = await bridgeFailures(
      async () => limited,
      {},
      inputs({ networks: [{ bridge: "vmbr0" }, { bridge: "vmbr1" }] }),
    );
    expect(failures.map((f) => f.property)).toEqual(["networks[1].bridge"]);
    expect(failures[0]?.reason).toContain(
      "grant the token SDN.Use on /sdn/zones/localnetwork/vmbr1",
    );
  });

  it("leaves the lookup to create when the lookup itself fails", async () => {
    sim.faults.failRequests({ path: "^/nodes/pve2/network$" }, 500, "ifupdown2 config broken");
    const news = inputs({ node: "pve2", network: { bridge: "vmbr9" } });
    expect(await bridgeFailures(async () => ctx, {}, news)).toEqual([]);
    expect(sim.requestLog.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      "GET /nodes/pve2/network 500",
    ]);
  });
});
