import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommandReport } from "../../cli";
import { startSimulator, type Simulator } from "../../simulator";
import { engineEnv, exportedResources, type EngineEnv } from "../e2e/support/engine";
import { guestVms, proxmoxStack } from "../e2e/support/proxmox-stack";
import { readJson, runBin } from "./support";

const VM_TYPE = "pulumi-nodejs:dynamic/proxmox:ProxmoxVm";

const program = `
const { ProxmoxVm } = require("pulumi-proxmox");
for (const name of ["stopped", "resized", "deleted"]) {
  new ProxmoxVm(name, { node: "pve1", template: 9000, cores: 1, memory: 1024 });
}
`;

/**
 * The CI loop the CLI exists for: something changes outside Pulumi, `drift` says what, `up`
 * (without flags) puts it back, and `drift` is clean again.
 */
describe("pulumi-proxmox up after out-of-band changes", () => {
  let sim: Simulator;
  let engine: EngineEnv;
  let dir: string;
  const vmids: Record<string, number> = {};
  beforeAll(async () => {
    sim = await startSimulator();
    engine = engineEnv();
    dir = await proxmoxStack("cli-up", program, sim, engine);
    const up = await runBin(["up", "--stack", "dev", "--quiet"], dir, engine.env);
    if (up.code !== 0) throw new Error(up.stdout + up.stderr);
    for (const r of await exportedResources(dir, engine.env)) {
      if (r.type !== VM_TYPE || !r.outputs) continue;
      vmids[String(r.outputs["vmName"]).split("-")[0] ?? ""] = r.outputs["vmid"] as number;
    }
  });
  afterAll(async () => {
    engine.cleanup();
    await sim.close();
  });
  const report = (name: string) => path.join(dir, `${name}.json`);

  it("drift exits 2 naming a stopped VM, changed memory and a deleted VM", async () => {
    sim.faults.stopVm(vmids["stopped"] ?? 0);
    sim.faults.setConfig(vmids["resized"] ?? 0, { memory: 4096 });
    sim.faults.deleteVm(vmids["deleted"] ?? 0);
    const drift = await runBin(
      ["drift", "--stack", "dev", "--report", report("before")],
      dir,
      engine.env,
    );
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    expect(drift.stdout).toContain("Drift found in stack dev: 3 resource(s) would change.");
    expect(drift.stdout).toContain(
      "started: true → false (changed outside Pulumi; the program sets true)",
    );
    expect(drift.stdout).toContain(
      "memory: 1024 → 4096 (changed outside Pulumi; the program sets 1024)",
    );
    expect(drift.stdout).toContain(`+ deleted (${VM_TYPE}): deleted outside Pulumi; create`);
    expect(drift.stdout).not.toContain("resource operations at once");
    const json = readJson<CommandReport>(report("before"));
    expect(json.resources.map((r) => [r.name, r.op]).sort()).toEqual([
      ["deleted", "create"],
      ["resized", "update"],
      ["stopped", "update"],
    ]);
  });

  it("up, without a flag, puts every change back and says what it found", async () => {
    const up = await runBin(["up", "--stack", "dev", "--report", report("up")], dir, engine.env);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toContain("up of stack dev succeeded.");
    expect(up.stdout).toContain(
      "memory: found 4096 (changed outside Pulumi; recorded 1024) → converged to 1024",
    );
    expect(up.stdout).toContain(
      "started: found false (changed outside Pulumi; recorded true) → converged to true",
    );
    expect(up.stdout).toContain(`+ deleted (${VM_TYPE}): deleted outside Pulumi; created again`);
    // Never the drift report's wording, which would read as if up had set 4096.
    expect(up.stdout).not.toContain("the program sets");
    expect(up.stdout.match(/resource operations at once/g)).toHaveLength(1);
    const vms = guestVms(sim);
    expect(vms).toHaveLength(3);
    for (const vmid of vms) {
      expect(sim.model.vms.get(vmid)?.status).toBe("running");
      expect(Number(sim.model.vms.get(vmid)?.config["memory"])).toBe(1024);
    }
  });

  it("drift is clean afterwards: exit 0", async () => {
    const drift = await runBin(["drift", "--stack", "dev"], dir, engine.env);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    expect(drift.stdout).toContain("No drift in stack dev.");
  });

  it("up --no-refresh trusts the state and leaves an out-of-band change alone", async () => {
    const vmid = guestVms(sim)[0] ?? 0;
    sim.faults.setConfig(vmid, { memory: 2048 });
    const up = await runBin(["up", "--stack", "dev", "--no-refresh", "--quiet"], dir, engine.env);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(Number(sim.model.vms.get(vmid)?.config["memory"])).toBe(2048);
    const drift = await runBin(["drift", "--stack", "dev", "--quiet"], dir, engine.env);
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
  });
});
