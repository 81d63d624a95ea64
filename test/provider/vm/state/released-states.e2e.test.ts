import * as fs from "node:fs";
import * as path from "node:path";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import {
  engineEnv,
  exportedResources,
  pulumi,
  writeProgram,
  type EngineEnv,
} from "../../../e2e/support/engine";
import { leftoverProcesses } from "../../../e2e/support/processes";
import { configureProxmoxStack, guestVms, seedIsos } from "../../../e2e/support/proxmox-stack";
import { VM_STATE_VERSION } from "../../../../provider/vm/state/vm-state";
import {
  CAPTURE_PASSPHRASE,
  capturedCheckpoint,
  capturedOutputs,
  capturedVms,
  RELEASES,
  releasesDir,
  type Release,
} from "./released-states";

/**
 * The captured checkpoint with its default provider pointed at `sim`. Refresh and delete
 * configure the provider from the checkpoint, not from the stack config; the capture's endpoint,
 * CA file and token were a simulator that is gone, where a user's stay their cluster's.
 */
function checkpointFor(sim: Simulator, release: Release, dir: string): string {
  const caFile = path.join(dir, "ca.pem"); // where configureProxmoxStack wrote sim's CA
  const connection = {
    "proxmox:endpoint": sim.url,
    "proxmox:caCert": caFile,
    "proxmox:apiToken": {
      [specialSigKey]: specialSecretSig,
      plaintext: JSON.stringify(sim.apiToken),
    },
  };
  const checkpoint = capturedCheckpoint(release);
  for (const resource of checkpoint.deployment.resources) {
    if (resource.type !== "pulumi:providers:pulumi-nodejs") continue;
    resource.inputs = { ...resource.inputs, ...connection };
    resource.outputs = { ...resource.outputs, ...connection };
  }
  const file = path.join(dir, "checkpoint.json");
  fs.writeFileSync(file, JSON.stringify(checkpoint));
  return file;
}

/** A distinctive part of the SSH key in program.js's `cloudInit.users`. */
const KEY_IN_PROGRAM = "OpsCompatFixtureKey";

/** The steps a `preview --json` plans, as `op name` per resource, the stack left out. */
function plannedSteps(previewJson: string): string[] {
  const { steps } = JSON.parse(previewJson) as { steps: { op: string; urn: string }[] };
  return steps
    .filter((step) => step.urn.includes(":ProxmoxVm::"))
    .map((step) => `${step.op} ${step.urn.split("::").pop() ?? ""}`)
    .sort();
}

/** Whether the VM's mark in its description says its create finished. */
function markPhase(sim: Simulator, vmid: number): string | undefined {
  const description = String(sim.model.vms.get(vmid)?.config["description"] ?? "");
  return /"phase":"(\w+)"/.exec(description)?.[1];
}

describe.each(RELEASES)("a stack written by %s, taken over by this release", (release) => {
  let sim: Simulator | undefined;
  let engine: EngineEnv | undefined;
  afterEach(async () => {
    engine?.cleanup();
    await sim?.close();
  });

  it("refreshes, finishes the partial create, updates in place, and destroys leaving nothing", async () => {
    const web = capturedOutputs(release, "web")["vmid"] as number;
    const half = capturedOutputs(release, "half")["vmid"] as number;
    sim = await startSimulator({ listingLagMs: 0 });
    for (const dump of capturedVms(release)) sim.faults.restoreVm(dump);
    expect(guestVms(sim).sort()).toEqual([web, half].sort());
    expect(markPhase(sim, half)).toBe("creating");

    engine = engineEnv({ PULUMI_CONFIG_PASSPHRASE: CAPTURE_PASSPHRASE });
    const env = engine.env;
    const dir = writeProgram(
      "compat",
      fs.readFileSync(path.join(releasesDir, "program.js"), "utf8"),
    );
    await configureProxmoxStack(dir, sim, engine);
    const run = async (...args: string[]) => {
      const result = await pulumi(args, dir, env);
      expect(result.code, `pulumi ${args.join(" ")}:\n${result.stdout}${result.stderr}`).toBe(0);
      return result.stdout;
    };
    await run("stack", "import", "--file", checkpointFor(sim, release, dir));

    // The one change: `half`'s create failed after the clone, and the engine sends a resource
    // with init errors to update, which finishes it. `web` refreshes without a change.
    const first = await run("preview", "--refresh", "--json");
    expect(plannedSteps(first)).toEqual(["refresh half", "refresh web", "update half"]);
    await run("up", "--yes", "--skip-preview");
    expect(markPhase(sim, half)).toBe("complete");
    expect(sim.model.vms.get(half)?.status).toBe("running");
    expect(seedIsos(sim)).toHaveLength(2);
    await run("preview", "--refresh", "--expect-no-changes", "--diff");

    await run("config", "set", "webCores", "4");
    await run(
      "config",
      "set",
      "webDisks",
      JSON.stringify([
        { interface: "scsi0", sizeGiB: 2 },
        { interface: "scsi1", storage: "local-lvm", sizeGiB: 4 },
      ]),
    );
    await run("up", "--yes", "--skip-preview");
    const config = sim.model.vms.get(web)?.config ?? {};
    expect(config["cores"]).toBe(4);
    expect(String(config["scsi1"])).toMatch(new RegExp(`^local-lvm:vm-${web}-disk-\\d+,.*size=4G`));
    const stored = (await exportedResources(dir, env)).find((r) => r.id === String(web));
    expect(stored?.outputs).toMatchObject({ schemaVersion: VM_STATE_VERSION, phase: "complete" });
    // 0.1.0 stored the cloud-init users in plain text; the state this release writes does not.
    const checkpoint = await run("stack", "export");
    expect(checkpoint).not.toContain(KEY_IN_PROGRAM);
    await run("preview", "--refresh", "--expect-no-changes", "--diff");

    await run("destroy", "--yes", "--skip-preview");
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
    expect([web, half].filter((vmid) => sim?.model.isFileLocked(vmid))).toEqual([]);
    expect(leftoverProcesses(engine.marker)).toEqual([]);
  });
});
