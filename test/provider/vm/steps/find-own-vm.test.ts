import { describe, expect, it } from "vitest";
import { describe as describeVm, markFor } from "../../../../provider/vm/identity";
import { findOwnVm } from "../../../../provider/vm/steps/find-own-vm";
import { FakeProxmoxApi } from "../../../support/fake-api";
import { testContext } from "../../../support/test-context";

describe("findOwnVm", () => {
  it("reports a long clone wait at most every 10 s, with the seconds waited", async () => {
    const api = new FakeProxmoxApi();
    const ctx = testContext(api);
    api.addVm(500, { node: "pve1", status: "stopped", config: { lock: "clone" } });
    let reads = 0;
    const original = api.vmConfig.bind(api);
    api.vmConfig = async (node, vmid) => {
      // The clone ends after 25 polls, one second apart on the test clock.
      if (vmid === 500 && ++reads === 26) {
        const vm = api.vms.get(500);
        if (vm) vm.config = { name: "someone-else" };
      }
      return original(node, vmid);
    };
    const found = await findOwnVm(ctx, {
      identity: "0123456789abcdef",
      vmName: "web-012345",
      probe: [500],
      cloneBudgetMs: 60_000,
    });
    expect(found).toBeUndefined();
    expect(reads).toBe(26);
    expect(ctx.progressLines.filter((line) => line.includes("waiting for a clone"))).toEqual([
      "VM 500 on pve1: waiting for a clone in progress to finish (0 s)",
      "VM 500 on pve1: waiting for a clone in progress to finish (10 s)",
      "VM 500 on pve1: waiting for a clone in progress to finish (20 s)",
    ]);
  });

  it("never waits on a clone in its window that another resource of this process started", async () => {
    const api = new FakeProxmoxApi();
    const ctx = testContext(api);
    api.addVm(500, { node: "pve1", status: "stopped", config: { lock: "clone" } });
    ctx.clones.claim(500, "fedcba9876543210");
    ctx.clones.started(500, "pve1");
    const found = await findOwnVm(ctx, {
      identity: "0123456789abcdef",
      vmName: "web-012345",
      probe: [500, 501],
      cloneBudgetMs: 60_000,
    });
    expect(found).toBeUndefined();
    expect(api.callsOf("vmConfig")).toEqual([]);
    expect(ctx.progressLines).toEqual([]);
  });

  it("finds the clone this process started for it before the listing shows it", async () => {
    const api = new FakeProxmoxApi();
    const identity = "0123456789abcdef";
    const mark = markFor(
      identity,
      { node: "pve1", template: 9000, storage: undefined, isoStorage: "local" },
      "creating",
    );
    api.addVm(600, {
      node: "pve1",
      status: "stopped",
      config: { name: "web-012345", description: describeVm(undefined, mark) },
    });
    const ctx = { ...testContext(api), listVms: async () => [] };
    ctx.clones.claim(600, identity);
    ctx.clones.started(600, "pve1");
    const found = await findOwnVm(ctx, {
      identity,
      vmName: "web-012345",
      probe: [600],
      cloneBudgetMs: 60_000,
    });
    expect(found).toMatchObject({ node: "pve1", vmid: 600, mark: { id: identity } });
  });
});
