import { beforeEach, describe, expect, it } from "vitest";
import { classify } from "../../../../provider/pve/classify";
import { PermanentError, TransientError } from "../../../../provider/pve/errors";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import type { VmState } from "../../../../provider/vm/state/vm-state";
import { FakeProxmoxApi } from "../../../support/fake-api";
import { testContext } from "../../../support/test-context";

const inputs = checkVm(
  {},
  { identity: { project: "infra", stack: "dev", name: "db" }, node: "pve1", template: 9000 },
).inputs as ResolvedInputs;

const forbidden = () =>
  new PermanentError("FORBIDDEN", "Permission check failed (/storage/local, Datastore.Allocate)", {
    status: 403,
    privilege: "Datastore.Allocate",
    aclPath: "/storage/local",
  });

describe("deleteVm", () => {
  let api: FakeProxmoxApi;
  let state: VmState;
  beforeEach(async () => {
    api = new FakeProxmoxApi();
    state = await createVm(testContext(api), inputs);
    api.calls.length = 0;
  });

  it("stops a running VM first, then deletes the seed, then destroys the VM", async () => {
    await deleteVm(testContext(api), state);
    const order = api.calls
      .map((c) => c.method)
      .filter((m) => ["stopVm", "deleteVolume", "destroyVm"].includes(m));
    expect(order).toEqual(["stopVm", "deleteVolume", "destroyVm"]);
    expect(api.vms.has(state.vmid)).toBe(false);
    expect(api.isosOn("local", "pve1")).toEqual([]);
  });

  it("skips the stop for a stopped VM", async () => {
    const vm = api.vms.get(state.vmid);
    if (vm) vm.status = "stopped";
    await deleteVm(testContext(api), state);
    expect(api.callsOf("stopVm")).toEqual([]);
    expect(api.callsOf("destroyVm")).toHaveLength(1);
  });

  it("keeps the VM, stopped, when the seed delete is refused, and names the privilege", async () => {
    api.failNext("deleteVolume", forbidden(), 2);
    const first = await deleteVm(testContext(api), state).catch((e: unknown) => e);
    expect(first).toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringContaining("Datastore.Allocate"),
    });
    expect(first).toMatchObject({ message: expect.stringContaining("node pve1") });
    expect(api.callsOf("destroyVm")).toEqual([]);
    expect(api.vms.get(state.vmid)?.status).toBe("stopped");

    const second = await deleteVm(testContext(api), state).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(PermanentError);

    await deleteVm(testContext(api), state);
    expect(api.vms.has(state.vmid)).toBe(false);
    expect(api.isosOn("local", "pve1")).toEqual([]);
  });

  it("joins PVE's classified 403 into one sentence, without a doubled full stop", async () => {
    const path = "/nodes/pve1/storage/local/content/x";
    api.failNext(
      "deleteVolume",
      classify(
        "DELETE",
        path,
        403,
        "Permission check failed (/storage/local, Datastore.Allocate)",
        undefined,
      ),
    );
    const error = await deleteVm(testContext(api), state).catch((e: unknown) => e);
    expect(error).toMatchObject({
      message: expect.stringContaining("needs the ACL on the token itself. The VM is kept"),
    });
    expect((error as Error).message).not.toContain("..");
  });

  it("skips a node that is down and still destroys the VM", async () => {
    api.nodeList.push({ node: "pve3", status: "offline" });
    await deleteVm(testContext(api), state);
    expect(api.callsOf("nodeStorages").map(([n]) => n)).toEqual(["pve1", "pve2"]);
    expect(api.vms.has(state.vmid)).toBe(false);
  });

  it("skips a node whose seed listing fails transiently, with a warning", async () => {
    api.failNext(
      "nodeStorages",
      new TransientError("UNAVAILABLE", "595 No route to host", { node: "pve1" }),
    );
    const ctx = testContext(api);
    await deleteVm(ctx, state);
    expect(ctx.warnings[0]).toContain("Skipped seed clean-up on node pve1");
  });

  it("keeps the VM when the destroy task fails, with the seed already gone", async () => {
    api.taskOutcomes.push("OK", "OK", "VM is locked (backup)");
    await expect(deleteVm(testContext(api), state)).rejects.toMatchObject({ code: "TASK_FAILED" });
    expect(api.vms.has(state.vmid)).toBe(true);
    expect(api.isosOn("local", "pve1")).toEqual([]);
  });

  it("counts a VM gone midway as success", async () => {
    api.failNext(
      "stopVm",
      new PermanentError(
        "NOT_FOUND",
        `Configuration file 'nodes/pve1/qemu-server/${state.vmid}.conf' does not exist`,
      ),
    );
    await expect(deleteVm(testContext(api), state)).resolves.toBeUndefined();
  });

  it("counts a destroy task that finds the VM already destroyed as success", async () => {
    // A destroy whose answer was lost is sent again; the repeat's task meets the first one's work.
    api.taskOutcomes.push(
      "OK",
      "OK",
      `Configuration file 'nodes/pve1/qemu-server/${state.vmid}.conf' does not exist`,
    );
    await expect(deleteVm(testContext(api), state)).resolves.toBeUndefined();
  });

  it("names the VM when the node listing for the seed delete is refused", async () => {
    api.failNext("nodes", new PermanentError("AUTH", "GET /nodes: 401 authentication failure."));
    await expect(deleteVm(testContext(api), state)).rejects.toThrow(
      new RegExp(
        `^VM ${state.vmid}: listing the nodes to delete its seed ISOs from failed: GET /nodes`,
      ),
    );
    // The VM is kept for the next delete, which finishes both.
    expect(api.vms.has(state.vmid)).toBe(true);
    await deleteVm(testContext(api), state);
    expect(api.vms.has(state.vmid)).toBe(false);
    expect(api.isosOn("local", "pve1")).toEqual([]);
  });

  it("cleans the seed of a VM that is already gone", async () => {
    api.vms.delete(state.vmid);
    await deleteVm(testContext(api), state);
    expect(api.isosOn("local", "pve1")).toEqual([]);
  });

  it("touches nothing when the VMID now holds a VM that is not ours", async () => {
    const vm = api.vms.get(state.vmid);
    if (vm) vm.config = { name: "impostor", description: "hand-made" };
    await expect(deleteVm(testContext(api), state)).rejects.toMatchObject({ code: "NOT_OURS" });
    expect(api.callsOf("stopVm")).toEqual([]);
    expect(api.callsOf("destroyVm")).toEqual([]);
    expect(api.callsOf("deleteVolume")).toEqual([]);
  });
});
