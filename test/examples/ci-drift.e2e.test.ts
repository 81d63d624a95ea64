import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../simulator";
import { engineEnv, pulumi, type EngineEnv } from "../e2e/support/engine";
import { configureProxmoxStack, guestVms } from "../e2e/support/proxmox-stack";
import { copyExample, run, tsc } from "./support";
import { expectExitCode, expectSuccess } from "../support/command-result";

describe("examples/ci-drift against a single-vm stack on the simulator", () => {
  let sim: Simulator;
  let engine: EngineEnv;
  let program: string;
  let check: string;
  const driftCheck = (...args: string[]) =>
    run("node", [path.join(check, "bin", "index.js"), ...args], check, engine.env);

  beforeAll(async () => {
    sim = await startSimulator({ listingLagMs: 500 });
    engine = engineEnv();
    program = copyExample("single-vm");
    await configureProxmoxStack(program, sim, engine);
    check = copyExample("ci-drift");
    const build = await run("node", [tsc, "-p", check], check);
    if (build.code !== 0) throw new Error(`tsc failed: ${build.stdout}${build.stderr}`);
    const up = await pulumi(["up", "--yes", "--skip-preview"], program, engine.env);
    if (up.code !== 0) throw new Error(`pulumi up failed: ${up.stdout}${up.stderr}`);
  });
  afterAll(async () => {
    await pulumi(["destroy", "--yes", "--skip-preview"], program, engine.env);
    engine.cleanup();
    await sim.close();
  });

  it("exits 0 and says so when Proxmox matches the program", async () => {
    const result = await driftCheck("--dir", program, "--stack", "dev");
    expectSuccess(result);
    expect(result.stdout).toBe("drift check: stack dev matches Proxmox\n");
  });

  it("exits 2 naming the resource and property, and writes the report, when a VM was stopped", async () => {
    const [vmid] = guestVms(sim);
    sim.faults.stopVm(vmid ?? 0);
    const report = path.join(check, "drift.json");
    const result = await driftCheck("--dir", program, "--stack", "dev", "--report", report);
    expectExitCode(result, 2);
    expect(result.stdout).toBe(
      [
        "drift check: 1 resource(s) of stack dev drifted",
        "  update pulumi-nodejs:dynamic/proxmox:ProxmoxVm web",
        "      started: false → true",
        "",
      ].join("\n"),
    );
    const written = JSON.parse(fs.readFileSync(report, "utf8")) as {
      stack: string;
      drifted: { name: string; op: string; properties: unknown[] }[];
    };
    expect(written.stack).toBe("dev");
    expect(written.drifted.map((d) => [d.name, d.op, d.properties])).toEqual([
      ["web", "update", [{ path: "started", kind: "update", live: false, desired: true }]],
    ]);
  });

  it("exits 1 when the stack cannot be checked", async () => {
    const result = await driftCheck("--dir", path.join(check, "no-such-program"), "--stack", "dev");
    expectExitCode(result, 1);
    expect(result.stderr).toMatch(/^drift check failed: /);
  });
});
