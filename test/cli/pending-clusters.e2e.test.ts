import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../simulator";
import { engineEnv, pulumi, type EngineEnv } from "../e2e/support/engine";
import { guestVms, proxmoxStack, seedIsos } from "../e2e/support/proxmox-stack";
import { runBin, startUp, until } from "./support";
import { expectSuccess } from "../support/command-result";

/** A VM on the stack config's cluster and one on a `Provider`'s, whose clone is slow. */
const program = (dc2: Simulator) => `
const pulumi = require("@pulumi/pulumi");
const { Provider, ProxmoxVm } = require("pulumi-proxmox");
const dc2 = new Provider("dc2", {
  endpoint: ${JSON.stringify(dc2.url)},
  apiToken: new pulumi.Config().requireSecret("dc2Token"),
  caCert: ${JSON.stringify(dc2.caCertPem)},
});
new ProxmoxVm("one", { node: "pve1", template: 9000 });
new ProxmoxVm("two", { node: "pve1", template: 9000 }, { provider: dc2 });
`;

const cloning = (sim: Simulator) =>
  [...sim.model.tasks.values()].some((t) => t.type === "qmclone" && t.status === "running");

describe("pulumi-proxmox destroy after an up killed mid-create on a Provider's cluster", () => {
  let dc1: Simulator;
  let dc2: Simulator;
  let engine: EngineEnv;
  let dir: string;

  beforeAll(async () => {
    [dc1, dc2] = await Promise.all([
      startSimulator({ taskDurationsMs: { qmclone: 4_000 } }),
      startSimulator({ taskDurationsMs: { qmclone: 4_000 } }),
    ]);
    engine = engineEnv();
    dir = await proxmoxStack("killed-two-clusters", program(dc2), dc1, engine);
    const secret = await pulumi(
      ["config", "set", "--secret", "dc2Token", dc2.apiToken],
      dir,
      engine.env,
    );
    if (secret.code !== 0) throw new Error(secret.stderr);
  });
  afterAll(async () => {
    engine.cleanup();
    await Promise.all([dc1.close(), dc2.close()]);
  });

  it("deletes the interrupted creates on each cluster through that cluster's provider", async () => {
    const run = startUp(dir, engine.env);
    await until("both clones running", () => cloning(dc1) && cloning(dc2));
    run.kill();
    await run.exited;
    await until("the clones to end", () => !cloning(dc1) && !cloning(dc2));
    await pulumi(["cancel", "--yes"], dir, engine.env);
    expect(guestVms(dc1)).toHaveLength(1);
    expect(guestVms(dc2)).toHaveLength(1);
    const [two] = guestVms(dc2);

    const destroy = await runBin(["destroy", "--stack", "dev"], dir, engine.env);
    expectSuccess(destroy);
    expect(destroy.stdout).toContain("2 VM(s) of an interrupted run were not in the state");
    expect(destroy.stdout).toMatch(new RegExp(`deleted VM ${two} on pve1 .*\\(provider dc2\\)`));
    expect(guestVms(dc1)).toEqual([]);
    expect(guestVms(dc2)).toEqual([]);
    expect([...seedIsos(dc1), ...seedIsos(dc2)]).toEqual([]);
  });
});
