import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, afterAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../simulator";
import { pulumi } from "../e2e/support/engine";
import { workspaceDir } from "../e2e/support/paths";
import { killProcesses, leftoverProcesses, untilNoneLeft } from "../e2e/support/processes";
import { guestVms, seedIsos } from "../e2e/support/proxmox-stack";
import { useStack } from "../e2e/support/use-stack";
import { expectExitCode, expectSuccess } from "../support/command-result";
import { runBin, startUp, until } from "../cli/support";
import { copyExample, readManifest } from "./support";

const cloning = (sim: Simulator) =>
  [...sim.model.tasks.values()].some((t) => t.type === "qmclone" && t.status === "running");

/** VMs and templates holding a config lock (a clone, a migration, a backup…). */
const locked = (sim: Simulator) =>
  [...sim.model.vms].filter(([, vm]) => vm.config["lock"] !== undefined).map(([vmid]) => vmid);

describe("examples/two-clusters: one VM on each of two simulators, through the real engine", () => {
  // The first cluster is the stack config's; the second the program's Provider "dc2".
  const { sim: dc1, engine, dir } = useStack({ dir: copyExample("two-clusters") });
  let dc2: Simulator;
  const host = (sim: Simulator) => new URL(sim.url).host;
  /** The CLI, run from elsewhere than the program: relative settings must still resolve. */
  const cli = (command: string, ...args: string[]) =>
    runBin([command, "--cwd", dir, ...args], workspaceDir, engine.env);

  beforeAll(async () => {
    // A slow clone on dc2 keeps its VM's create open long enough to be killed in.
    dc2 = await startSimulator({ taskDurationsMs: { qmclone: 6_000 } });
    fs.writeFileSync(path.join(dir, "dc2-ca.pem"), dc2.caCertPem);
    for (const args of [
      ["config", "set", "dc2:endpoint", dc2.url],
      ["config", "set", "--secret", "dc2:apiToken", dc2.apiToken],
      ["config", "set", "dc2:caCert", "dc2-ca.pem"],
    ]) {
      expectSuccess(await pulumi(args, dir, engine.env));
    }
  });
  afterAll(async () => {
    await dc2.close();
  });

  it("depends on pulumi-proxmox by name", () => {
    expect(readManifest("two-clusters").dependencies["pulumi-proxmox"]).toBe("^0.1.0");
  });

  it("recovers an up killed mid-create on the second cluster with pulumi-proxmox up", async () => {
    const run = startUp(dir, engine.env);
    await until(
      "web-dc1 created and web-dc2 cloning",
      () => /web-dc1 created/.test(run.stdout()) && cloning(dc2),
    );
    // The whole tree at once, as a cancelled CI job: pulumi, its language host, the providers.
    run.kill();
    killProcesses(leftoverProcesses(engine.marker));
    await run.exited;
    await until("the clone on dc2 to end", () => !cloning(dc2));
    expectSuccess(await pulumi(["cancel", "--yes"], dir, engine.env));
    expect(guestVms(dc1)).toHaveLength(1);
    const [orphan] = guestVms(dc2);
    expect(guestVms(dc2)).toEqual([orphan]);

    // sweep finds the killed create's VM on dc2, under dc2's heading, and nothing on dc1.
    const listed = await cli("sweep", "--stack", "dev");
    expectSuccess(listed);
    const [first, second] = listed.stdout.split(/^== /m).slice(1);
    expect(first).toMatch(`provider default, ${host(dc1)} (stack dev's config)`);
    expect(first).toContain("No orphans.");
    expect(second).toMatch(`provider dc2, ${host(dc2)} (its inputs in stack dev's state)`);
    expect(second).toMatch(
      new RegExp(`orphan\\s+vm\\s+VM ${orphan} on pve1 \\(web-dc2-.*orphan of an interrupted run`),
    );

    const up = await cli("up", "--stack", "dev");
    expectSuccess(up);
    expect(up.stdout).toContain("resuming 1 VM(s) an interrupted run left as pending creates");
    expect(guestVms(dc2)).toEqual([orphan]);
    expect(guestVms(dc1)).toHaveLength(1);
  });

  it("passes pulumi-proxmox drift, then names the cluster of a change made outside Pulumi", async () => {
    expectSuccess(await cli("drift", "--stack", "dev"));

    const [vmid] = guestVms(dc2);
    dc2.faults.setConfig(vmid ?? 0, { cores: 3 });
    const drift = await cli("drift", "--stack", "dev");
    expectExitCode(drift, 2);
    expect(drift.stdout).toMatch(
      new RegExp(`~ web-dc2 \\(.*ProxmoxVm\\) on provider dc2 \\(${host(dc2)}\\): update`),
    );
    expect(drift.stdout).toContain("cores: 1 → 3 (changed outside Pulumi; the program sets 1)");
  });

  it("checks the second cluster's connection with doctor --provider, saying which it checked", async () => {
    const doctor = await cli("doctor", "--stack", "dev", "--provider", "dc2", "--template", "9000");
    expect(doctor.stdout).toContain(`${dc2.url} as root@pam!ci (provider dc2 of stack dev)`);
    expect(doctor.stdout).toMatch(/root@pam!ci\s+accepted/);
  });

  it("sweeps both clusters and finds nothing on either; --provider sweeps one", async () => {
    const sweep = await cli("sweep", "--stack", "dev");
    expectSuccess(sweep);
    expect(sweep.stdout.match(/^== provider /gm)).toHaveLength(2);
    expect(sweep.stdout.match(/^No orphans\.$/gm)).toHaveLength(2);

    const one = await cli("sweep", "--stack", "dev", "--provider", "dc2");
    expectSuccess(one);
    expect(one.stdout.match(/^== provider .*$/gm)).toEqual([
      `== provider dc2, ${host(dc2)} (its inputs in stack dev's state)`,
    ]);
  });

  it("destroys everything on both clusters, leaving no VM, seed, lock or provider process", async () => {
    expectSuccess(await cli("destroy", "--stack", "dev"));
    for (const sim of [dc1, dc2]) {
      expect(guestVms(sim)).toEqual([]);
      expect(seedIsos(sim)).toEqual([]);
      expect(locked(sim)).toEqual([]);
    }
    await untilNoneLeft(engine.marker);
  });
});
