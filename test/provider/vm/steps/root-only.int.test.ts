import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import { buildContext } from "../../../../provider/pve/connection";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { rootOnlyFailures } from "../../../../provider/vm/steps/root-only";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";

const inputs = checkVm(
  {},
  {
    identity: { project: "int", stack: "root", name: "vm" },
    node: "pve1",
    template: 9000,
    hookscript: "local:snippets/hook.pl",
  },
).inputs;

const contextOf = (sim: Simulator, login: Record<string, string>): OperationContext => {
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:caCert": sim.caCertPem,
    ...login,
  };
  return { ...buildContext({ get: (key) => config[key] }), progress: () => undefined };
};

describe("root-only inputs against the simulator", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator();
    sim.faults.putSnippet("pve1", "local", "hook.pl", true);
  });
  afterAll(() => sim.close());

  it("refuses a hookscript to a token at preview, and lets a root@pam password login through", async () => {
    const token = contextOf(sim, { "proxmox:apiToken": sim.apiToken });
    expect((await rootOnlyFailures(async () => token, {}, inputs)).map((f) => f.property)).toEqual([
      "hookscript",
    ]);
    const root = contextOf(sim, {
      "proxmox:username": "root@pam",
      "proxmox:password": sim.rootPassword,
    });
    expect(await rootOnlyFailures(async () => root, {}, inputs)).toEqual([]);
  });

  it("refuses the create with a token before anything is cloned", async () => {
    const token = contextOf(sim, { "proxmox:apiToken": sim.apiToken });
    const before = sim.model.vms.size;
    await expect(createVm(token, inputs as ResolvedInputs)).rejects.toThrow(
      /^hookscript: PVE lets only root@pam set it/,
    );
    expect(sim.model.vms.size).toBe(before);
  });
});
