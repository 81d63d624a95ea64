import { describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";
import type { ConvergeRun } from "../../../../provider/vm/steps/converge-run";
import { ensurePower, type PowerFacts } from "../../../../provider/vm/steps/power-step";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { FakeProxmoxApi } from "../../../support/fake-api";
import { testContext } from "../../../support/test-context";

const vm = { node: "pve1", vmid: 100 };

function setUp(status: "running" | "stopped", inputs: Record<string, unknown> = {}) {
  const api = new FakeProxmoxApi();
  api.addVm(100, { node: "pve1", status, config: { cores: 2 } });
  const ctx = testContext(api);
  const desired = checkVm(
    {},
    { identity: { project: "p", stack: "s", name: "vm" }, node: "pve1", template: 9000, ...inputs },
  ).inputs as ResolvedInputs;
  const run: ConvergeRun = {
    ctx,
    vm,
    desired,
    naming: {} as ConvergeRun["naming"],
    budgetMs: 60_000,
  };
  return { api, ctx, run };
}

/** The facts of a run that wrote `cores` to a VM that had a seed attached. */
const wroteCores: PowerFacts = {
  known: { config: { cores: 2 }, current: { cores: 2 }, pending: [] },
  seen: { macs: {} },
  written: { set: { cores: 4 }, deleted: [] },
  previousSeed: "local:iso/seed.iso",
  seedChanged: false,
  justCloned: false,
};

describe("ensurePower", () => {
  it("starts a stopped VM the program wants running", async () => {
    const { api, ctx, run } = setUp("stopped");
    await ensurePower(run, { ...wroteCores, written: { set: {}, deleted: [] } });
    expect(api.vms.get(100)?.status).toBe("running");
    expect(ctx.progressLines).toEqual(["VM 100 on pve1: starting"]);
  });

  it("reboots a running VM for a key PVE keeps pending, naming the key", async () => {
    const { ctx, run } = setUp("running", { cores: 4 });
    await ensurePower(run, wroteCores);
    expect(ctx.progressLines).toEqual(["VM 100 on pve1: rebooting to apply cores"]);
  });

  it("only warns under rebootPolicy never, leaving the VM running", async () => {
    const { api, ctx, run } = setUp("running", { cores: 4, rebootPolicy: "never" });
    await ensurePower(run, wroteCores);
    expect(api.callsOf("rebootVm")).toEqual([]);
    expect(ctx.warnings).toEqual([
      'VM 100 on pve1: cores wait for the next reboot (rebootPolicy is "never"); they stay in ' +
        "pendingChanges and show as drift until the VM reboots.",
    ]);
  });

  it("starts a VM cloned a moment ago without reading its status", async () => {
    const { api, run } = setUp("stopped");
    await ensurePower(run, { ...wroteCores, justCloned: true, previousSeed: undefined });
    expect(api.callsOf("vmStatus")).toEqual([]);
    expect(api.vms.get(100)?.status).toBe("running");
  });
});
