import { beforeEach, describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { updateVm } from "../../../../provider/vm/operations/update";
import type { VmState } from "../../../../provider/vm/state/vm-state";
import { VmInitError } from "../../../../provider/vm/init-error";
import { FakeProxmoxApi } from "../../../support/fake-api";
import { testContext } from "../../../support/test-context";

const base = {
  identity: { project: "infra", stack: "dev", name: "api" },
  node: "pve1",
  template: 9000,
};
const resolve = (extra: Record<string, unknown>) =>
  checkVm({}, { ...base, cores: 2, ...extra }).inputs as ResolvedInputs;

describe("updateVm", () => {
  let api: FakeProxmoxApi;
  let state: VmState;
  beforeEach(async () => {
    api = new FakeProxmoxApi();
    state = await createVm(testContext(api), resolve({}));
    api.calls.length = 0;
  });

  it("changes cores in place on the same VMID, rebooting the running VM to apply them", async () => {
    const updated = await updateVm(testContext(api), state, resolve({ cores: 4 }));
    expect(updated).toMatchObject({ vmid: state.vmid, cores: 4 });
    expect(api.callsOf("updateVmConfig")[0]?.[2]).toEqual({ set: { cores: 4 } });
    expect(api.callsOf("rebootVm")).toHaveLength(1);
    expect(api.callsOf("cloneVm")).toEqual([]);
  });

  it("leaves the reboot to the user when rebootPolicy is never, and says so", async () => {
    const ctx = testContext(api);
    await updateVm(ctx, state, resolve({ cores: 4, rebootPolicy: "never" }));
    expect(api.callsOf("rebootVm")).toEqual([]);
    expect(ctx.warnings).toEqual([
      `VM ${state.vmid} on pve1: cores wait for the next reboot (rebootPolicy is "never"); ` +
        "they stay in pendingChanges and show as drift until the VM reboots.",
    ]);
  });

  it("hot-plugs vCPUs without a reboot when the VM runs with cpu in hotplug", async () => {
    const vm = api.vms.get(state.vmid);
    if (vm) vm.config = { ...vm.config, hotplug: "network,disk,cpu", sockets: 1, cores: 4 };
    const ctx = testContext(api);
    await updateVm(ctx, state, resolve({ cores: undefined, cpu: { vcpus: 3 } }));
    expect(api.callsOf("updateVmConfig")[0]?.[2]).toEqual({ set: { vcpus: 3 } });
    expect(api.callsOf("rebootVm")).toEqual([]);
    expect(ctx.warnings).toEqual([]);
  });

  it("reboots for a change an earlier up left pending, once rebootPolicy allows it", async () => {
    const vm = api.vms.get(state.vmid);
    if (vm) vm.pending = { cores: 4 };
    const ctx = testContext(api);
    const updated = await updateVm(ctx, state, resolve({ cores: 4 }));
    expect(api.callsOf("rebootVm")).toHaveLength(1);
    expect(ctx.progressLines).toContain(`VM ${state.vmid} on pve1: rebooting to apply cores`);
    expect(updated).toMatchObject({ cores: 4, pendingChanges: [] });
  });

  it("re-seeds in place when cloud-init changes: new seed attached, old seed deleted, VM kept", async () => {
    const updated = await updateVm(
      testContext(api),
      state,
      resolve({ cloudInit: { packages: ["nginx"] } }),
    );
    expect(updated.vmid).toBe(state.vmid);
    expect(updated.seedVolid).not.toBe(state.seedVolid);
    expect(api.isosOn("local", "pve1")).toEqual([updated.seedVolid]);
    expect(api.vms.get(state.vmid)?.config["ide2"]).toBe(`${updated.seedVolid},media=cdrom`);
  });

  it("stops the VM gracefully when started becomes false", async () => {
    const updated = await updateVm(testContext(api), state, resolve({ started: false }));
    expect(api.callsOf("shutdownVm")).toHaveLength(1);
    expect(updated).toMatchObject({ started: false, status: "stopped" });
  });

  it("starts a VM stopped out of band", async () => {
    const vm = api.vms.get(state.vmid);
    if (vm) vm.status = "stopped";
    const updated = await updateVm(testContext(api), { ...state, started: false }, resolve({}));
    expect(api.callsOf("startVm")).toHaveLength(1);
    expect(updated.started).toBe(true);
  });

  it("grows the disk and refuses to shrink it", async () => {
    await updateVm(testContext(api), state, resolve({ diskSize: 10 }));
    expect(api.callsOf("resizeDisk")).toEqual([["pve1", state.vmid, "scsi0", "10G"]]);
    await expect(updateVm(testContext(api), state, resolve({ diskSize: 5 }))).rejects.toMatchObject(
      {
        reasons: [expect.stringContaining("Proxmox cannot shrink disks")],
      },
    );
  });

  it("normalises tags as PVE does, so an unchanged set sends nothing", async () => {
    await updateVm(testContext(api), state, resolve({ tags: ["Web", "api", "web"] }));
    expect(api.vms.get(state.vmid)?.config["tags"]).toBe("api;web");
    api.calls.length = 0;
    await updateVm(testContext(api), state, resolve({ tags: ["web", "api"] }));
    expect(api.callsOf("updateVmConfig")).toEqual([]);
  });

  it("keeps a failed update resumable: the VM stays in state with the new inputs", async () => {
    api.taskOutcomes.push("config failed: got timeout");
    const error = await updateVm(testContext(api), state, resolve({ cores: 6 })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(VmInitError);
    expect(error).toMatchObject({
      id: String(state.vmid),
      properties: { cores: 6, vmid: state.vmid },
    });
  });

  it("changes nothing on a VM that lost its mark", async () => {
    const vm = api.vms.get(state.vmid);
    if (vm) vm.config["description"] = "hand edited";
    await expect(updateVm(testContext(api), state, resolve({ cores: 4 }))).rejects.toMatchObject({
      code: "NOT_OURS",
    });
    expect(api.callsOf("updateVmConfig")).toEqual([]);
  });
});

describe("updateVm after a move", () => {
  it("moves a VM found on another node back to its placement, live when running", async () => {
    const api = new FakeProxmoxApi();
    const state = await createVm(testContext(api), resolve({}));
    const vm = api.vms.get(state.vmid);
    if (vm) vm.node = "pve2";
    const ctx = testContext(api);
    const slots: string[] = [];
    const updated = await updateVm(
      {
        ...ctx,
        // The move-back counts against heavyTasksPerNode on the node it copies from.
        withHeavyTaskSlot: (node, _step, fn) => {
          slots.push(node);
          return fn();
        },
      },
      { ...state, currentNode: "pve2" },
      resolve({}),
    );
    expect(slots).toEqual(["pve2"]);
    expect(api.callsOf("migrateVm")).toEqual([["pve2", state.vmid, "pve1", true]]);
    expect(updated).toMatchObject({ node: "pve1", currentNode: "pve1" });
  });

  it("leaves an accepted move alone", async () => {
    const api = new FakeProxmoxApi();
    const state = await createVm(testContext(api), resolve({}));
    const vm = api.vms.get(state.vmid);
    if (vm) vm.node = "pve2";
    const updated = await updateVm(
      testContext(api),
      { ...state, currentNode: "pve2" },
      resolve({ nodeDrift: "accept" }),
    );
    expect(api.callsOf("migrateVm")).toEqual([]);
    expect(updated.currentNode).toBe("pve2");
  });
});
