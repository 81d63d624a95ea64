import { describe, expect, it } from "vitest";
import { classifyTaskFailure } from "../../../provider/pve/classify.js";

describe("classifyTaskFailure", () => {
  const upid = "UPID:pve1:0021B19E:02328820:67CC7B42:qmdestroy:100:root@pam!ci:";

  it("makes a TASK_FAILED error with the log tail and the family of the exit text", () => {
    const error = classifyTaskFailure("pve1", upid, "VM is locked (clone)", [
      "trying to acquire lock...",
      "TASK ERROR: VM is locked (clone)",
    ]);
    expect(error.code).toBe("TASK_FAILED");
    expect(error.transient).toBe(false);
    expect(error.context).toMatchObject({
      node: "pve1",
      vmid: 100,
      upid,
      taskErrorCode: "LOCKED",
      taskLogTail: ["trying to acquire lock...", "TASK ERROR: VM is locked (clone)"],
    });
    expect(error.message).toBe(
      `PVE task qmdestroy for VM 100 on pve1 failed: VM is locked (clone) (${upid}). See ` +
        "the task log in the PVE UI (node pve1, Tasks).\nLast lines of the task log:\n  " +
        "trying to acquire lock...\n  TASK ERROR: VM is locked (clone)",
    );
  });

  it("marks a start of a missing VM as NOT_FOUND in taskErrorCode", () => {
    const error = classifyTaskFailure(
      "pve1",
      "UPID:pve1:0021B19E:02328820:67CC7B42:qmstart:100:root@pam!ci:",
      "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist",
      [],
    );
    expect(error.context.taskErrorCode).toBe("NOT_FOUND");
  });

  it.each([
    // pve-guest-common AbstractConfig.pm __snapshot_prepare.
    ["snapshot name 'before-upgrade' already used", "qmsnapshot", "ALREADY_EXISTS"],
    ["snapshot feature is not available", "qmsnapshot", "UNSUPPORTED"],
    // AbstractConfig.pm snapshot_delete / snapshot_rollback.
    ["snapshot 'gone' does not exist", "qmdelsnapshot", "NOT_FOUND"],
    ["VM is locked (snapshot)", "qmrollback", "LOCKED"],
    // pve-storage ZFSPoolPlugin.pm volume_rollback_is_possible.
    ["can't rollback, more recent snapshots exist", "qmrollback", "BAD_STATE"],
  ])("marks the snapshot task's exit '%s' (%s) as %s", (text, type, code) => {
    const upidOf = `UPID:pve1:0021B19E:02328820:67CC7B42:${type}:100:root@pam!ci:`;
    const error = classifyTaskFailure("pve1", upidOf, text, []);
    expect([error.code, error.context.taskErrorCode]).toEqual(["TASK_FAILED", code]);
  });

  it.each([
    ["checksum mismatch: got 'ab12' != expect 'cd34'", "CHECKSUM_MISMATCH"],
    ["checksum mismatch: got 'ab12' != expect 'cd34', aborting", "CHECKSUM_MISMATCH"],
    ["decompression not supported for import", "UNSUPPORTED"],
  ])(
    "marks the download task's exit '%s' (pve-storage Status.pm download_url) as %s",
    (text, code) => {
      const error = classifyTaskFailure(
        "pve1",
        "UPID:pve1:0021B19E:02328820:67CC7B42:download:debian.qcow2:root@pam!ci:",
        text,
        [],
      );
      expect(error.code).toBe("TASK_FAILED");
      expect(error.context.taskErrorCode).toBe(code);
    },
  );

  it("reports a start that failed on a missing bridge as the VM's network, not its guest", () => {
    // pve-common PVE/Network.pm $read_bridge_mtu, logged by qemu-server's pve-bridge script.
    const start = "UPID:pve1:0021B19E:02328820:67CC7B42:qmstart:105:root@pam!ci:";
    const error = classifyTaskFailure("pve1", start, "start failed: QEMU exited with code 1", [
      "bridge 'vmbr9' does not exist",
      "kvm: -netdev type=tap,id=net1,ifname=tap105i1,…: network script … failed with status 512",
      "TASK ERROR: start failed: QEMU exited with code 1",
    ]);
    expect(error.context).toMatchObject({ taskErrorCode: "NOT_FOUND", missingBridge: "vmbr9" });
    expect(error.message).toMatch(
      /^PVE task qmstart for VM 105 on pve1 failed: a NIC is on bridge vmbr9, which node pve1 does not have \(start failed: QEMU exited with code 1; UPID:.*\)\. The VM was not started: its network, not its guest, is the problem\./,
    );
    expect(error.message).toContain("the next `up` starts the VM");
  });

  it("leaves taskErrorCode undefined for an unknown text and an empty UPID id", () => {
    const error = classifyTaskFailure(
      "pve1",
      "UPID:pve1:0021B19E:02328820:67CC7B42:imgcopy::root@pam!ci:",
      "error with cfs lock 'file-storage_cfg': got lock request timeout",
      [],
    );
    expect(error.context.taskErrorCode).toBeUndefined();
    expect(error.context.vmid).toBeUndefined();
    expect(error.message).toContain("PVE task imgcopy on node pve1 failed");
  });
});
