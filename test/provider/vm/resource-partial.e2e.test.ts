import { beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator";
import { pulumi } from "../../e2e/support/engine";
import { guestVms, proxmoxStack, seedIsos } from "../../e2e/support/proxmox-stack";
import { expectFailure, expectSuccess } from "../../support/command-result";
import { useEnginePerTest } from "../../e2e/support/use-stack";

const oneVm = `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("half", { node: "pve1", template: 9000, cores: 1, memory: 512 });
exports.vmid = vm.vmid;
`;

const up = ["up", "--yes", "--skip-preview"];

/** Whether the one VM in the simulator carries a complete mark. */
function markPhase(sim: Simulator): string | undefined {
  const [vmid] = guestVms(sim);
  const description = String(sim.model.vms.get(vmid ?? 0)?.config["description"] ?? "");
  return /"phase":"(\w+)"/.exec(description)?.[1];
}

describe("a create that fails after the clone, through the real engine", () => {
  const { engine, startSimulator } = useEnginePerTest();
  let sim: Simulator;
  beforeEach(async () => {
    sim = await startSimulator();
  });

  it("is finished by the next up when the seed upload failed, then refreshes and destroys", async () => {
    const dir = await proxmoxStack("upload-500", oneVm, sim, engine);
    sim.faults.failRequests(
      { method: "POST", path: /^\/nodes\/pve1\/storage\/local\/upload$/, count: 10 },
      500,
      "error writing file: No space left on device",
    );
    const failed = await pulumi(up, dir, engine.env);
    expectFailure(failed);
    expect(failed.stdout).toContain("No space left on device");
    expect(guestVms(sim)).toHaveLength(1);
    expect(markPhase(sim)).toBe("creating");

    sim.faults.clear();
    const again = await pulumi(up, dir, engine.env);
    expectSuccess(again);
    expect(guestVms(sim)).toHaveLength(1);
    expect(seedIsos(sim)).toHaveLength(1);
    expect(markPhase(sim)).toBe("complete");

    const refresh = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expectSuccess(refresh);

    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });

  it("is read by refresh and deleted by destroy when the start task failed", async () => {
    const dir = await proxmoxStack("start-fails", oneVm, sim, engine);
    sim.faults.failTasks({ type: "qmstart", count: 1 }, "start failed: QEMU exited with code 1");
    const failed = await pulumi(up, dir, engine.env);
    expectFailure(failed);
    expect(failed.stdout).toContain("QEMU exited with code 1");
    expect(guestVms(sim)).toHaveLength(1);

    const refresh = await pulumi(["refresh", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(refresh);

    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });
});
