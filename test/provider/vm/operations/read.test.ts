import { beforeEach, describe, expect, it } from "vitest";
import { TransientError } from "../../../../provider/pve/errors";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { readVm } from "../../../../provider/vm/operations/read";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import type { VmState } from "../../../../provider/vm/state/vm-state";
import { FakeProxmoxApi } from "../../../support/fake-api";
import { testContext } from "../../../support/test-context";

const inputs = checkVm(
  {},
  {
    identity: { project: "infra", stack: "dev", name: "app" },
    node: "pve1",
    template: 9000,
    cores: 2,
  },
).inputs as ResolvedInputs;

describe("readVm", () => {
  let api: FakeProxmoxApi;
  let state: VmState;
  beforeEach(async () => {
    api = new FakeProxmoxApi();
    state = await createVm(testContext(api), inputs);
    api.calls.length = 0;
  });

  it("reads an untouched VM back as the state it was created with", async () => {
    expect(await readVm(testContext(api), state)).toEqual(state);
  });

  it("reports cores changed out of band", async () => {
    const vm = api.vms.get(state.vmid);
    if (vm) vm.config["cores"] = 8;
    expect(await readVm(testContext(api), state)).toMatchObject({ cores: 8 });
  });

  it("reports a VM stopped out of band as not started", async () => {
    const vm = api.vms.get(state.vmid);
    if (vm) vm.status = "stopped";
    expect(await readVm(testContext(api), state)).toMatchObject({
      started: false,
      status: "stopped",
      ipv4Addresses: [],
    });
  });

  it("follows a VM moved to another node and reports where it runs now", async () => {
    const vm = api.vms.get(state.vmid);
    if (vm) vm.node = "pve2";
    expect(await readVm(testContext(api), state)).toMatchObject({
      node: "pve1",
      currentNode: "pve2",
    });
  });

  it("reads a deleted VM as gone", async () => {
    api.vms.delete(state.vmid);
    expect(await readVm(testContext(api), state)).toBeUndefined();
  });

  it("reads a VMID reused by someone else's VM as gone", async () => {
    const vm = api.vms.get(state.vmid);
    if (vm) vm.config = { name: "reused", description: "not ours" };
    expect(await readVm(testContext(api), state)).toBeUndefined();
  });

  it("answers Transient, naming both causes, when the listing says unknown and the node does not answer", async () => {
    api.listingOverride = (rows) =>
      rows.map((r) => (r.vmid === state.vmid ? { ...r, status: "unknown" } : r));
    api.failNext(
      "vmPending",
      new TransientError("UNAVAILABLE", "595 No route to host", { node: "pve1" }),
    );
    const error = await readVm(testContext(api), state).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({
      message: `VM ${state.vmid} is listed with status unknown: its node pve1 is not answering, or the VM is too new to be reported yet. Retry in a few seconds.`,
    });
  });

  it("needs the cluster listing, its node's listing for the status, one config read (with its pending changes) and, for a running VM, the agent", async () => {
    await readVm(testContext(api), state);
    expect(api.calls.map((c) => c.method).sort()).toEqual(
      ["agentInterfaces", "clusterVms", "nodeVms", "vmPending"].sort(),
    );
  });

  it("asks for the status on its own when the node's listing does not hold the VM yet", async () => {
    const nodeVms = api.nodeVms.bind(api);
    api.nodeVms = async (node) => (await nodeVms(node)).filter((vm) => vm.vmid !== state.vmid);
    const vm = api.vms.get(state.vmid);
    if (vm) vm.status = "stopped";
    expect(await readVm(testContext(api), state)).toMatchObject({ status: "stopped" });
    expect(api.calls.map((c) => c.method)).toContain("vmStatus");
  });
});
