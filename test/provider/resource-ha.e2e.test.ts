import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../simulator";
import { engineEnv, pulumi, type EngineEnv } from "../e2e/support/engine";
import { guestVms, proxmoxStack, seedIsos } from "../e2e/support/proxmox-stack";

const oneVm = `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("ha", { node: "pve1", template: 9000, cores: 1, memory: 512 });
exports.vmid = vm.vmid;
`;

/** Dynamic-provider processes still running in the stack's directory (Linux /proc). */
function providersIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (
        cmdline.includes("pulumi-resource-pulumi-nodejs") &&
        readlinkSync(`/proc/${entry}/cwd`) === dir
      )
        pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

describe("ProxmoxVm under HA, through the real engine", () => {
  let sim: Simulator;
  let engine: EngineEnv;
  beforeEach(() => {
    engine = engineEnv();
  });
  afterEach(async () => {
    engine.cleanup();
    await sim.close();
  });

  it("destroys a VM an admin put under HA: exit 0, and no VM, seed or HA resource is left", async () => {
    sim = await startSimulator({ haCrmDelayMs: 3_000 });
    const dir = await proxmoxStack("ha", oneVm, sim, engine);
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const [vmid] = guestVms(sim);
    expect(vmid).toBeDefined();
    sim.faults.putUnderHa(vmid ?? 0);

    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);
    expect(destroy.stdout).toMatch(/waiting for HA to report it stopped \(\d+ s\)/);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
    expect(sim.model.haResources()).toEqual([]);
    expect(providersIn(dir)).toEqual([]);

    const refresh = await pulumi(["refresh", "--yes", "--skip-preview"], dir, engine.env);
    expect(refresh.code, refresh.stdout + refresh.stderr).toBe(0);
  });
});
