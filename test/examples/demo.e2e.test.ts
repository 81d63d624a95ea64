import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../simulator";
import { engineEnv, pulumi, type EngineEnv } from "../e2e/support/engine";
import { configureProxmoxStack, guestVms, seedIsos } from "../e2e/support/proxmox-stack";
import { copyExample } from "./support";

describe("examples/demo (plain JavaScript) through the real engine against the simulator", () => {
  let sim: Simulator;
  let engine: EngineEnv;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ listingLagMs: 500 });
    engine = engineEnv();
    dir = copyExample("demo");
    await configureProxmoxStack(dir, sim, engine);
  });
  afterAll(async () => {
    engine.cleanup();
    await sim.close();
  });

  it("creates web on pve1 and db on pve2 and exports names, nodes and addresses", async () => {
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const outputs = JSON.parse(
      (await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout,
    ) as { names: string[]; nodes: string[]; ips: string[][]; vmids: number[] };
    expect(outputs.names.map((name) => name.slice(0, -7))).toEqual(["web", "db"]);
    expect(outputs.nodes).toEqual(["pve1", "pve2"]);
    for (const ips of outputs.ips) expect(ips[0]).toMatch(/^10\.10\.0\.\d+$/);
    expect(guestVms(sim).sort()).toEqual([...outputs.vmids].sort());
    expect(seedIsos(sim)).toHaveLength(2);
  });

  it("passes the drift check, then destroys both VMs", async () => {
    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);
    expect(guestVms(sim)).toEqual([]);
  });
});
