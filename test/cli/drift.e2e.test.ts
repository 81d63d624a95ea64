import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { CommandReport } from "../../cli";
import { startSimulator } from "../../simulator";
import { pulumi, requireFromWorkspace } from "../e2e/support/engine";
import { guestVms, proxmoxStack, seedIsos } from "../e2e/support/proxmox-stack";
import { readJson, runBin } from "./support";
import { expectExitCode, expectSuccess } from "../support/command-result";
import { useStack } from "../e2e/support/use-stack";
import { VM_TYPE } from "../../provider/entry";

const program = `
const { ProxmoxVm } = require("pulumi-proxmox");
const web = new ProxmoxVm("web", { node: "pve1", template: 9000, cores: 2, memory: 1024 });
exports.vmid = web.vmid;
`;

describe("drift, up and destroy through the installed bin", () => {
  const { sim, engine, dir } = useStack({ name: "cli-drift", program });
  let vmid: number;
  const report = (name: string) => path.join(dir, `${name}.json`);

  it("up creates the stack's VM and exits 0 with an ok report", async () => {
    const up = await runBin(["up", "--stack", "dev", "--report", report("up")], dir, engine.env);
    expectSuccess(up);
    expect(up.stdout).toContain("cloning template 9000");
    expect(up.stdout).toContain("up of stack dev succeeded.");
    const json = readJson<CommandReport>(report("up"));
    expect(json.status).toBe("ok");
    expect(json.exitCode).toBe(0);
    expect(json.changeSummary).toEqual({ create: 2 });
    vmid = json.outputs?.["vmid"] as number;
    expect(guestVms(sim)).toEqual([vmid]);
  });

  it("exits 0 on the untouched stack and reports it clean", async () => {
    const drift = await runBin(
      ["drift", "--stack", "dev", "--report", report("clean")],
      dir,
      engine.env,
    );
    expectSuccess(drift);
    expect(drift.stdout).toContain("No drift in stack dev.");
    const json = readJson<CommandReport>(report("clean"));
    expect(json.status).toBe("clean");
    expect(json.resources).toEqual([]);
  });

  it("exits 2 naming the resource and the property when cores change out of band", async () => {
    sim.faults.setConfig(vmid, { cores: 8 });
    const drift = await runBin(
      ["drift", "--stack", "dev", "--report", report("cores")],
      dir,
      engine.env,
    );
    expectExitCode(drift, 2);
    expect(drift.stdout).toContain("Drift found in stack dev: 1 resource(s) would change.");
    expect(drift.stdout).toContain(`~ web (${VM_TYPE}): update`);
    expect(drift.stdout).toContain("cores: 2 → 8 (changed outside Pulumi; the program sets 2)");
    const json = readJson<CommandReport>(report("cores"));
    expect(json.status).toBe("drift");
    expect(json.exitCode).toBe(2);
    expect(json.resources.map((r) => [r.name, r.op])).toEqual([["web", "update"]]);
    expect(json.resources[0]?.properties).toEqual([
      { property: "cores", recorded: 2, live: 8, desired: 2, changedOutside: true },
    ]);
  });

  it("exits 2 naming started when the VM is stopped out of band, from the drift() function, without the parallelism banner", async () => {
    sim.faults.stopVm(vmid);
    const cli = requireFromWorkspace("pulumi-proxmox/cli") as typeof import("../../cli");
    let progress = "";
    const result = await cli.drift({
      stack: "dev",
      cwd: dir,
      env: stringEnv(engine.env),
      onOutput: (text) => void (progress += text),
    });
    expect(progress).toContain("Previewing update (dev)");
    expect(progress).not.toContain("resource operations at once");
    expect(result.exitCode).toBe(2);
    const props = result.resources[0]?.properties ?? [];
    expect(props.find((p) => p.property === "started")).toEqual({
      property: "started",
      recorded: true,
      live: false,
      desired: true,
      changedOutside: true,
    });
    // ipv6Addresses stays []: the guest's only IPv6 address is link-local, which does not count.
    expect(props.map((p) => p.property)).toEqual(["cores", "ipv4Addresses", "started", "status"]);
    expect(props.find((p) => p.property === "status")).toEqual({
      property: "status",
      recorded: "running",
      live: "stopped",
      changedOutside: true,
    });
  });

  it("refuses a --parallel that is not a whole number of at least 1, before the engine runs", async () => {
    const drift = await runBin(["drift", "--stack", "dev", "--parallel", "0"], dir, engine.env);
    expectExitCode(drift, 1);
    expect(drift.stderr).toContain("--parallel must be a whole number of at least 1, got 0");
    expect(drift.stdout).not.toContain("Previewing");
  });

  it("exits 1 for a stack that does not exist", async () => {
    const drift = await runBin(
      ["drift", "--stack", "nope", "--report", report("nope")],
      dir,
      engine.env,
    );
    expectExitCode(drift, 1);
    expect(drift.stderr).toContain("drift of stack nope failed.");
    expect(drift.stderr).toMatch(/no stack named 'nope' found/);
    expect(readJson<CommandReport>(report("nope")).status).toBe("error");
  });

  it("exits 1 when the endpoint is unreachable", async () => {
    // The refresh talks to the endpoint the state's provider was configured with: a stack on a
    // second simulator, which then goes away.
    const gone = await startSimulator();
    const other = await proxmoxStack("cli-down", program, gone, engine);
    const up = await pulumi(["up", "--yes", "--skip-preview"], other, engine.env);
    expectSuccess(up);
    await gone.close();
    const drift = await runBin(
      ["drift", "--stack", "dev", "--report", report("down")],
      other,
      engine.env,
    );
    expectExitCode(drift, 1);
    expect(drift.stderr).toContain("drift of stack dev failed.");
    const json = readJson<CommandReport>(report("down"));
    expect(json.status).toBe("error");
    expect(json.exitCode).toBe(1);
    expect(json.error).toContain(new URL(gone.url).host);
  });

  it("reports a VM deleted out of band as one line; up --refresh recreates it and leaves one seed", async () => {
    const oldSeed = seedIsos(sim);
    sim.faults.deleteVm(vmid);
    const drift = await runBin(
      ["drift", "--stack", "dev", "--report", report("deleted")],
      dir,
      engine.env,
    );
    expectExitCode(drift, 2);
    expect(drift.stdout).toContain(`+ web (${VM_TYPE}): deleted outside Pulumi; create`);
    expect(drift.stdout).not.toContain("(unset)");
    const json = readJson<CommandReport>(report("deleted"));
    expect(json.resources).toEqual([
      expect.objectContaining({ name: "web", op: "create", deletedOutside: true, properties: [] }),
    ]);

    const up = await runBin(["up", "--stack", "dev", "--refresh", "--quiet"], dir, engine.env);
    expectSuccess(up);
    const vms = guestVms(sim);
    expect(vms).toHaveLength(1);
    vmid = vms[0] ?? 0;
    // The new VM has a new MAC, so a new seed: the old one is gone, not left beside it.
    const seeds = seedIsos(sim);
    expect(seeds).toHaveLength(1);
    expect(seeds).not.toEqual(oldSeed);
  });

  it("up --refresh puts the VM back, then drift is clean and destroy exits 0", async () => {
    const up = await runBin(["up", "--stack", "dev", "--refresh", "--quiet"], dir, engine.env);
    expectSuccess(up);
    expect(sim.model.vms.get(vmid)?.status).toBe("running");
    expect(sim.model.vms.get(vmid)?.config["cores"]).toBe(2);
    const drift = await runBin(["drift", "--stack", "dev", "--quiet"], dir, engine.env);
    expectSuccess(drift);
    const destroy = await runBin(
      ["destroy", "--stack", "dev", "--report", report("destroy")],
      dir,
      engine.env,
    );
    expectSuccess(destroy);
    expect(readJson<CommandReport>(report("destroy")).changeSummary).toEqual({ delete: 2 });
    expect(guestVms(sim)).toEqual([]);
  });
});

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined),
  );
}
