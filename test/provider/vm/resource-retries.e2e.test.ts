import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator";
import { pulumi } from "../../e2e/support/engine";
import { guestVms, proxmoxStack, seedIsos } from "../../e2e/support/proxmox-stack";
import { expectSuccess } from "../../support/command-result";
import { useEnginePerTest } from "../../e2e/support/use-stack";

const twoVms = `
const { ProxmoxVm } = require("pulumi-proxmox");
const a = new ProxmoxVm("a", { node: "pve1", template: 9000, cores: 1, memory: 512 });
const b = new ProxmoxVm("b", { node: "pve1", template: 9000, cores: 1, memory: 512 });
exports.vmids = [a.vmid, b.vmid];
`;

/** Processes still running with this test's backend in their environment (engine or provider). */
function processesOf(backendDir: string): number[] {
  const marker = `PULUMI_BACKEND_URL=file://${backendDir}`;
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`, "utf8");
      if (environ.split("\0").includes(marker)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}

describe("ProxmoxVm with transient faults, through the real engine", () => {
  const { engine, startSimulator } = useEnginePerTest();
  let sim: Simulator;

  it("finishes up despite a 596 on the listing and a dropped clone POST, then destroys all", async () => {
    sim = await startSimulator({ listingLagMs: 200 });
    const dir = await proxmoxStack("retries", twoVms, sim, engine);
    sim.faults.failRequests(
      { method: "GET", path: "^/cluster/resources$" },
      596,
      "Connection timed out",
    );
    sim.faults.dropRequests({ method: "POST", path: "^/nodes/pve1/qemu/9000/clone$" });

    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
    expect(up.stdout).toMatch(
      /pulumi-proxmox: GET \/cluster\/resources: 596 Connection timed out, retrying \(attempt 2 of 6, in \d\.\d s\)/,
    );
    expect(up.stdout).toMatch(
      /VM \d+ on pve1: the clone request got no answer \(NETWORK\) .* sending it again to the same VMID \(attempt 2 of 3\)/,
    );
    expect(guestVms(sim)).toHaveLength(2);
    expect(seedIsos(sim)).toHaveLength(2);

    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
    expect(processesOf(engine.backendDir)).toEqual([]);
  });
});
