import { describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator";
import { pulumi } from "../../e2e/support/engine";
import { leftoverProcesses, untilNoneLeft } from "../../e2e/support/processes";
import { guestVms, proxmoxStack, seedIsos } from "../../e2e/support/proxmox-stack";
import { expectSuccess } from "../../support/command-result";
import { useEnginePerTest } from "../../e2e/support/use-stack";

const oneVm = `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("ha", { node: "pve1", template: 9000, cores: 1, memory: 512 });
exports.vmid = vm.vmid;
`;

describe("ProxmoxVm under HA, through the real engine", () => {
  const { engine, startSimulator } = useEnginePerTest();
  let sim: Simulator;

  it("destroys a VM an admin put under HA: exit 0, and no VM, seed or HA resource is left", async () => {
    sim = await startSimulator({ haCrmDelayMs: 3_000 });
    const dir = await proxmoxStack("ha", oneVm, sim, engine);
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
    const [vmid] = guestVms(sim);
    expect(vmid).toBeDefined();
    sim.faults.putUnderHa(vmid ?? 0);

    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(destroy.stdout).toMatch(/waiting for HA to report it stopped \(\d+ s\)/);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
    expect(sim.model.haResources()).toEqual([]);
    // Every process the engine started for this stack (its PULUMI_HOME marks them) is gone.
    await untilNoneLeft(engine.marker);
    expect(leftoverProcesses(engine.marker)).toEqual([]);

    const refresh = await pulumi(["refresh", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(refresh);
  });
});
