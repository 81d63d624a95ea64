import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { guestVms } from "../e2e/support/proxmox-stack";
import { copyExample, run, tsc } from "./support";
import { expectExitCode, expectSuccess } from "../support/command-result";
import { useStack } from "../e2e/support/use-stack";

describe("examples/ci-drift against a single-vm stack on the simulator", () => {
  const {
    sim,
    engine,
    dir: program,
    up,
  } = useStack(
    { dir: copyExample("single-vm") },
    { simulator: { listingLagMs: 500 }, destroyAfter: true },
  );
  let check: string;
  const driftCheck = (...args: string[]) =>
    run("node", [path.join(check, "bin", "index.js"), ...args], check, engine.env);

  beforeAll(async () => {
    check = copyExample("ci-drift");
    const build = await run("node", [tsc, "-p", check], check);
    if (build.code !== 0) throw new Error(`tsc failed: ${build.stdout}${build.stderr}`);
    await up();
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
