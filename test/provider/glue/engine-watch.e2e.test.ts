import { describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator";
import { pulumi, upAgain } from "../../e2e/support/engine";
import {
  describeProcesses,
  leftoverProcesses,
  startPulumi,
  until,
  untilNoneLeft,
  type ProcessInfo,
} from "../../e2e/support/processes";
import { guestVms, proxmoxStack, seedIsos } from "../../e2e/support/proxmox-stack";
import { expectSuccess } from "../../support/command-result";
import { useEnginePerTest } from "../../e2e/support/use-stack";

const oneVm = `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("solo", { node: "pve1", template: 9000, cores: 1, memory: 512 });
exports.vmid = vm.vmid;
`;

const isDynamicProvider = (p: ProcessInfo) => p.cmdline.includes("cmd/dynamic-provider");
const isLanguageHost = (p: ProcessInfo) => p.cmdline.includes("pulumi-language-nodejs");

describe("a killed engine", () => {
  const { engine, startSimulator } = useEnginePerTest();
  let sim: Simulator;

  it("leaves no provider or language host behind, and the next up finishes the VM", async () => {
    sim = await startSimulator({ taskDurationsMs: { qmclone: 8_000 } });
    const dir = await proxmoxStack("engine-gone", oneVm, sim, engine);
    const run = startPulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    await until("a running clone task", () =>
      [...sim.model.tasks.values()].some((t) => t.type === "qmclone" && t.status === "running"),
    );
    const during = leftoverProcesses(engine.marker);
    expect(during.some(isDynamicProvider), describeProcesses(during)).toBe(true);
    expect(during.some(isLanguageHost), describeProcesses(during)).toBe(true);

    // The engine alone dies, as in a crash or an OOM kill; its plugins have groups of their own.
    process.kill(run.pid, "SIGKILL");
    await run.exited;
    await untilNoneLeft(engine.marker);

    const again = await upAgain(dir, engine.env);
    expectSuccess(again);
    expect(guestVms(sim)).toHaveLength(1);
    expect(seedIsos(sim)).toHaveLength(1);
    const [vmid] = guestVms(sim);
    expect(sim.model.vms.get(vmid ?? 0)?.config["description"]).toContain('"phase":"complete"');
    await untilNoneLeft(engine.marker);

    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
    await untilNoneLeft(engine.marker);
  });
});
