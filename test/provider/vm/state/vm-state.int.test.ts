import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as runtime from "../../../../provider/glue/runtime";
import { startSimulator, type Simulator } from "../../../../simulator";
import { seedIsos } from "../../../e2e/support/proxmox-stack";
import { capturedOutputs } from "./released-states";

const PROVIDER =
  'exports.handler = function () { return require("pulumi-proxmox/dynamic-provider"); }';

/** The keys 0.1.0 (b338f75) stored for a partial create, from its captured state. */
const keysOf010Partial = Object.keys(capturedOutputs("0.1.0-b338f75", "half"));

describe("states of earlier releases through the provider's own entry points", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator();
    const config: Record<string, string> = {
      "proxmox:endpoint": sim.url,
      "proxmox:apiToken": sim.apiToken,
      "proxmox:caCert": sim.caCertPem,
    };
    await runtime.configure({ get: (key) => config[key] });
  });
  afterAll(() => sim.close());

  it("finishes, reads and deletes a VM whose partial create was saved the way 0.1.0 saved it", async () => {
    const { inputs } = await runtime.check(
      {},
      {
        __provider: PROVIDER,
        identity: { project: "compat", stack: "dev", name: "db" },
        node: "pve1",
        template: 9000,
        cores: 2,
      },
    );
    sim.faults.failRequests(
      { method: "POST", path: /\/storage\/local\/upload$/ },
      500,
      "disk full",
    );
    const failure = await runtime.create(inputs).then(
      () => undefined,
      (error: unknown) => error as { id: string; properties: Record<string, unknown> },
    );
    expect(failure?.id).toMatch(/^\d+$/);
    // Exactly what 0.1.0 would have stored for this failure: no version, nothing observed.
    const as010 = Object.fromEntries(
      keysOf010Partial.map((key) => [key, failure?.properties[key]]),
    );
    expect(as010["schemaVersion"]).toBeUndefined();
    const vmid = Number(failure?.id);

    const finished = await runtime.update(String(vmid), as010, inputs);
    expect(finished.outs).toMatchObject({ vmid, phase: "complete", status: "running" });
    expect(String(sim.model.vms.get(vmid)?.config["description"])).toContain('"phase":"complete"');

    const read = await runtime.read(String(vmid), finished.outs);
    expect(read.props).toMatchObject({ vmid, phase: "complete" });

    await runtime.remove(String(vmid), as010);
    expect(sim.model.vms.has(vmid)).toBe(false);
    expect(seedIsos(sim)).toEqual([]);
  });
});
