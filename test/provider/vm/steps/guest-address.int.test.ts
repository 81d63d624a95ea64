import { simulatorContext } from "../../../support/test-context";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { waitForAddress } from "../../../../provider/vm/steps/guest-address";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { startSimulator, type Simulator } from "../../../../simulator";

/** The wait for the guest agent's address, over HTTP, when the VM does not come back. */

let sim: Simulator;
let ctx: OperationContext;

beforeEach(async () => {
  sim = await startSimulator();
  ctx = { ...simulatorContext(sim), progress: () => undefined };
});
afterEach(() => sim.close());

const inputs = checkVm(
  {},
  { identity: { project: "int", stack: "agent", name: "vm" }, node: "pve1", template: 9000 },
).inputs as ResolvedInputs;

const reboot = { budgetMs: 30_000, step: "rebooting" };

describe("waitForAddress", () => {
  it("fails with the start task's error, not after its budget, when a reboot's start failed", async () => {
    const state = await createVm(ctx, inputs);
    const vm = { node: state.node, vmid: state.vmid };
    sim.faults.failTasks({ type: "qmstart", id: String(vm.vmid) }, "start failed: QEMU exited");
    await ctx.waitForTask(vm.node, await ctx.api.rebootVm(vm.node, vm.vmid), reboot);
    const budgetMs = 40_000;
    const started = Date.now();

    const waited = waitForAddress(ctx, vm, undefined, { budgetMs, template: "9000" });

    await expect(waited).rejects.toThrow(
      `VM ${vm.vmid} on pve1: the VM is not running, so the guest agent will not answer: its ` +
        "start task failed: start failed: QEMU exited.",
    );
    expect(Date.now() - started).toBeLessThan(budgetMs / 2);
  }, 90_000);

  it("keeps waiting through a reboot whose start succeeds", async () => {
    const state = await createVm(ctx, inputs);
    const vm = { node: state.node, vmid: state.vmid };
    await ctx.waitForTask(vm.node, await ctx.api.rebootVm(vm.node, vm.vmid), reboot);

    const net0 = String(sim.model.vms.get(vm.vmid)?.config["net0"]);
    const mac = /=([0-9A-F:]{17})/i.exec(net0)?.[1];

    const interfaces = await waitForAddress(ctx, vm, mac, {
      budgetMs: 40_000,
      template: "9000",
    });

    expect(interfaces.length).toBeGreaterThan(0);
  }, 90_000);
});
