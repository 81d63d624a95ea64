import { describe, expect, it } from "vitest";
import { findOwnVm } from "../../../provider/operations/find-own-vm";
import { FakeProxmoxApi } from "../../support/fake-api";
import { testContext } from "../../support/test-context";

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
});
