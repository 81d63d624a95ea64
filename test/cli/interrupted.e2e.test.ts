import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { Simulator } from "../../simulator";
import { pulumi } from "../e2e/support/engine";
import { guestVms, proxmoxStack, seedIsos } from "../e2e/support/proxmox-stack";
import { runBin, startUp, until } from "./support";
import { expectExitCode, expectFailure, expectSuccess } from "../support/command-result";
import { useEnginePerTest } from "../e2e/support/use-stack";

/** One VM of the given clone mode: each mode is part of the identity recovery looks for. */
const oneVm = (clone: string) => `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("solo", { node: "pve1", template: 9000, cores: 1, memory: 512${clone} });
exports.vmid = vm.vmid;
`;

/** No provider process of this stack's program directory is left running. */
function providerProcessesIn(dir: string): Promise<string> {
  return new Promise((resolve) => {
    const ps = spawn("ps", ["-eo", "pid,args"], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    ps.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    ps.once("exit", () =>
      resolve(
        out
          .split("\n")
          .filter((line) => line.includes("dynamic-provider") && line.includes(dir))
          .join("\n"),
      ),
    );
  });
}

describe.each([
  ["full", ""],
  ["linked", ", clone: { full: false }"],
])("an interrupted up of a %s clone, recovered through the installed bin", (mode, clone) => {
  const { engine, startSimulator } = useEnginePerTest();
  let sim: Simulator;

  it("lists the VM of an up killed mid-clone as an orphan of an interrupted run, and destroy deletes it", async () => {
    sim = await startSimulator({ taskDurationsMs: { qmclone: 4_000 } });
    const dir = await proxmoxStack(`killed-clone-${mode}`, oneVm(clone), sim, engine);
    const run = startUp(dir, engine.env);
    await until("a running clone", () =>
      [...sim.model.tasks.values()].some((t) => t.type === "qmclone" && t.status === "running"),
    );
    run.kill();
    await run.exited;
    await until("the clone to end", () =>
      [...sim.model.tasks.values()].every((t) => t.type !== "qmclone" || t.status !== "running"),
    );
    await pulumi(["cancel", "--yes"], dir, engine.env);

    // The engine's own destroy does not know the VM: it succeeds and leaves it.
    const engineDestroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(engineDestroy);
    const [vmid] = guestVms(sim);
    expect(guestVms(sim)).toHaveLength(1);
    // The kill left a clone of the mode the program asked for, its mode in the mark.
    const description = String(sim.model.vms.get(vmid ?? 0)?.config["description"]);
    expect(description.includes('"clone":{"full":false}')).toBe(mode === "linked");

    const sweepEnv = {
      ...engine.env,
      PROXMOX_VE_ENDPOINT: sim.url,
      PROXMOX_VE_API_TOKEN: sim.apiToken,
      PROXMOX_VE_CA_CERT: sim.caCertPem,
    };
    const listed = await runBin(["sweep", "--stack", "dev"], dir, sweepEnv);
    expectSuccess(listed);
    expect(listed.stdout).toMatch(
      new RegExp(`orphan\\s+vm\\s+VM ${vmid} on pve1 .*orphan of an interrupted run`),
    );

    const drift = await runBin(["drift", "--stack", "dev"], dir, engine.env);
    expectExitCode(drift, 2);
    expect(drift.stdout).toContain("Run `pulumi-proxmox up --stack dev` to resume");

    const destroy = await runBin(["destroy", "--stack", "dev"], dir, engine.env);
    expectSuccess(destroy);
    expect(destroy.stdout).toContain("1 VM(s) of an interrupted run were not in the state");
    expect(destroy.stdout).toMatch(new RegExp(`deleted VM ${vmid} on pve1`));
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);

    const again = await runBin(["sweep", "--stack", "dev"], dir, sweepEnv);
    expect(again.stdout).toContain("No orphans.");
    expect(await providerProcessesIn(dir)).toBe("");
  });

  it("resumes the complete VM of an up killed after the guest agent answered, without adopt", async () => {
    sim = await startSimulator();
    const dir = await proxmoxStack(`killed-agent-${mode}`, oneVm(clone), sim, engine);
    // The window: the mark says complete, the engine has not checkpointed the resource yet. The
    // mark is one quick PUT, so the create's last read (its status, after the mark) is held back
    // to keep the window open until the kill.
    sim.faults.delayRequests(
      { method: "GET", path: /^\/nodes\/pve1\/qemu\/\d+\/status\/current$/ },
      10_000,
    );
    const run = startUp(dir, engine.env);
    await until("the guest agent line", () => run.stdout().includes("guest agent reports"));
    await until("the complete mark", () =>
      guestVms(sim).some((vmid) =>
        String(sim.model.vms.get(vmid)?.config["description"]).includes('"phase":"complete"'),
      ),
    );
    run.kill();
    await run.exited;
    await pulumi(["cancel", "--yes"], dir, engine.env);

    // The engine alone refuses the VM it does not know.
    const plain = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectFailure(plain);
    expect(plain.stdout).toContain("adopt: true");

    const up = await runBin(["up", "--stack", "dev"], dir, engine.env);
    expectSuccess(up);
    expect(up.stdout).toContain("resuming 1 VM(s) an interrupted run left as pending creates");
    expect(up.stdout).toContain("resuming an interrupted create");
    expect(guestVms(sim)).toHaveLength(1);
    expect(seedIsos(sim)).toHaveLength(1);

    const clean = await runBin(["drift", "--stack", "dev"], dir, engine.env);
    expectSuccess(clean);

    const destroy = await runBin(["destroy", "--stack", "dev"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
    expect(await providerProcessesIn(dir)).toBe("");
  });
});
