import { describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator";
import { pulumi, upAgain } from "../../e2e/support/engine";
import { startPulumi, until, untilNoneLeft } from "../../e2e/support/processes";
import { guestVms, proxmoxStack, seedIsos } from "../../e2e/support/proxmox-stack";
import { expectFailure, expectSuccess } from "../../support/command-result";
import { useEnginePerTest } from "../../e2e/support/use-stack";

const oneVm = `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("solo", { node: "pve1", template: 9000, cores: 1, memory: 512 });
exports.vmid = vm.vmid;
`;

describe("ProxmoxVm under failure, through the real engine", () => {
  const { engine, startSimulator } = useEnginePerTest();
  let sim: Simulator;

  it.each([
    ["mid-clone", "qmclone"],
    ["mid-upload", "imgcopy"],
  ])(
    "ends with exactly one VM and one seed when up is killed %s and run again",
    async (_when, task) => {
      sim = await startSimulator({ taskDurationsMs: { [task]: 4_000 }, listingLagMs: 300 });
      const dir = await proxmoxStack("killed", oneVm, sim, engine);
      const run = startPulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
      await until(`a running ${task} task`, () =>
        [...sim.model.tasks.values()].some((t) => t.type === task && t.status === "running"),
      );
      run.kill();
      await run.exited;
      await untilNoneLeft(engine.marker);

      const again = await upAgain(dir, engine.env);
      expectSuccess(again);
      expect(guestVms(sim)).toHaveLength(1);
      expect(seedIsos(sim)).toHaveLength(1);
      const [vmid] = guestVms(sim);
      expect(sim.model.vms.get(vmid ?? 0)?.config["description"]).toContain('"phase":"complete"');

      const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
      expectSuccess(destroy);
      expect(guestVms(sim)).toEqual([]);
      expect(seedIsos(sim)).toEqual([]);
      await untilNoneLeft(engine.marker);
    },
  );

  it("keeps the VM and names the privilege when the seed delete is refused, then finishes", async () => {
    sim = await startSimulator();
    const dir = await proxmoxStack("refused", oneVm, sim, engine);
    expect((await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env)).code).toBe(0);
    const [vmid] = guestVms(sim);

    sim.faults.failRequests(
      { method: "DELETE", path: /^\/nodes\/[^/]+\/storage\/local\/content\//, count: 5 },
      403,
      "Permission check failed (/storage/local, Datastore.Allocate)",
    );
    const refused = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectFailure(refused);
    expect(refused.stdout).toContain("Datastore.Allocate");
    expect(refused.stdout).toMatch(new RegExp(`VM ${vmid}`));
    expect(sim.model.vms.get(vmid ?? 0)?.status).toBe("stopped");
    expect(seedIsos(sim)).toHaveLength(1);

    sim.faults.clear();
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });

  it("rejects bad input in preview, before any API call, naming the property", async () => {
    sim = await startSimulator();
    const dir = await proxmoxStack(
      "bad-input",
      oneVm.replace("cores: 1", 'cores: 0, network: { vlan: 5000 }, tags: ["bad tag"]'),
      sim,
      engine,
    );
    sim.clearRequestLog();
    const preview = await pulumi(["preview"], dir, engine.env);
    expectFailure(preview);
    expect(preview.stdout).toContain("has a problem: cores: at least 1 core");
    expect(preview.stdout).not.toMatch(/value \{/);
    expect(preview.stdout).toContain("network.vlan");
    expect(preview.stdout).toContain("tags[0]");
    expect(sim.requestLog).toEqual([]);
  });
});
