import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../simulator";
import { engineEnv, pulumi, type EngineEnv } from "../../e2e/support/engine";
import { proxmoxStack } from "../../e2e/support/proxmox-stack";
import { expectSuccess } from "../../support/command-result";

const program = `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("devices", {
  node: "pve1", template: 9000, waitForIp: false,
  watchdog: { model: "ib700", action: "reset" },
  rng: { source: "/dev/urandom", maxBytes: 2048, periodMs: 1000 },
});
exports.vmid = vm.vmid;
`;

describe("ProxmoxVm emulated devices through the real engine", () => {
  let sim: Simulator;
  let engine: EngineEnv;
  let dir: string;

  beforeAll(async () => {
    sim = await startSimulator({ guestBootMs: 20 });
    engine = engineEnv();
    dir = await proxmoxStack("devices", program, sim, engine);
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
  });
  afterAll(async () => {
    await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    engine.cleanup();
    await sim.close();
  });

  it("creates a VM with a watchdog and an RNG, and a refresh finds nothing to change", async () => {
    const { vmid } = JSON.parse(
      (await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout,
    ) as { vmid: number };
    expect(sim.model.vms.get(vmid)?.config).toMatchObject({
      watchdog: "model=ib700,action=reset",
      rng0: "source=/dev/urandom,max_bytes=2048,period=1000",
    });

    const drift = await pulumi(
      ["preview", "--refresh", "--expect-no-changes", "--diff"],
      dir,
      engine.env,
    );
    expectSuccess(drift);
  });
});
