import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { describe, expect, it, vi } from "vitest";
import type { ProxmoxApi } from "../../../../provider/pve/api/proxmox-api.js";
import { tracedApi, type TraceRecord } from "../../../../provider/pve/api/traced-api.js";
import { PermanentError } from "../../../../provider/pve/errors.js";

const UPID = "UPID:pve1:0021B19E:02328820:67CC7B42:qmclone:100:root@pam!ci:";

function fakeApi(): ProxmoxApi {
  return {
    cloneVm: () => Promise.resolve(UPID),
    updateVmConfig: () => Promise.resolve(null),
    vmConfig: () =>
      Promise.reject(
        new PermanentError("NOT_FOUND", "gone", { status: 500, node: "pve1", vmid: 100 }),
      ),
    taskStatus: () => Promise.resolve({ upid: UPID, node: "pve1", status: "running" }),
    version: () => Promise.reject(new TypeError("bug")),
  } as unknown as ProxmoxApi;
}

function clock(step: number) {
  let t = 0;
  return () => (t += step);
}

describe("traced-api", () => {
  it("logs method, node, VMID, returned UPID, duration and ok", async () => {
    const debug = vi.fn();
    const api = tracedApi(fakeApi(), { debug }, clock(12));
    await api.cloneVm({ node: "pve1", vmid: 100, newid: 101, name: "web", full: true });
    expect(debug).toHaveBeenCalledExactlyOnceWith(
      `pve cloneVm node=pve1 vmid=100 upid=${UPID} 12ms ok`,
    );
  });

  it("logs the error code and status and rethrows the same error", async () => {
    const debug = vi.fn();
    const api = tracedApi(fakeApi(), { debug }, clock(5));
    await expect(api.vmConfig("pve1", 100)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(debug).toHaveBeenCalledWith("pve vmConfig node=pve1 vmid=100 5ms NOT_FOUND status=500");
  });

  it("logs BUG for an error that is not a ProxmoxError", async () => {
    const debug = vi.fn();
    await expect(tracedApi(fakeApi(), { debug }, clock(1)).version()).rejects.toThrow("bug");
    expect(debug).toHaveBeenCalledWith("pve version 1ms BUG");
  });

  it("logs the UPID argument of a task call", async () => {
    const debug = vi.fn();
    await tracedApi(fakeApi(), { debug }, clock(3)).taskStatus("pve1", UPID);
    expect(debug).toHaveBeenCalledWith(`pve taskStatus node=pve1 upid=${UPID} 3ms ok`);
  });

  it("never logs arguments such as a cloud-init password", async () => {
    const debug = vi.fn();
    await tracedApi(fakeApi(), { debug }, clock(1)).updateVmConfig("pve1", 100, {
      set: { cipassword: "hunter2-secret", ciuser: "admin" },
      digest: "abc",
    });
    expect(debug).toHaveBeenCalledWith("pve updateVmConfig node=pve1 vmid=100 1ms ok");
    expect(JSON.stringify(debug.mock.calls)).not.toContain("hunter2");
  });

  it("publishes each record on the pulumi-proxmox:api diagnostics channel", async () => {
    const records: TraceRecord[] = [];
    const listener = (message: unknown) => records.push(message as TraceRecord);
    subscribe("pulumi-proxmox:api", listener);
    try {
      await tracedApi(fakeApi(), { debug: () => undefined }, clock(2)).cloneVm({
        node: "pve1",
        vmid: 100,
        newid: 101,
        name: "web",
        full: true,
      });
    } finally {
      unsubscribe("pulumi-proxmox:api", listener);
    }
    expect(records).toEqual([
      { method: "cloneVm", node: "pve1", vmid: 100, upid: UPID, durationMs: 2, outcome: "ok" },
    ]);
  });
});
