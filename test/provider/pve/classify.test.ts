import { describe, expect, it } from "vitest";
import { classify } from "../../../provider/pve/classify.js";
import { isTransient } from "../../../provider/pve/errors.js";

/** What a permanent SERVER error says about the next run. */
const NEXT_UP =
  " This run does not send it again: PVE gave up on the request, and the same request usually fails " +
  "the same way. The next `pulumi up` sends it again and carries on from there (what this run " +
  "finished is kept): fix what PVE names first; if the cause has passed, that `up` completes.";

describe("classify", () => {
  it("prefers the body's message (pve-http-server ≥ 5.2) over the reason phrase", () => {
    const error = classify("GET", "/nodes/pve-root/qemu/999/status/current", 500, "x", {
      message: "Configuration file 'nodes/pve-root/qemu-server/999.conf' does not exist\n",
      data: null,
    });
    expect(error.code).toBe("NOT_FOUND");
    expect(error.context.pveMessage).toBe(
      "Configuration file 'nodes/pve-root/qemu-server/999.conf' does not exist",
    );
    expect(error.message).toBe(
      "GET /nodes/pve-root/qemu/999/status/current: VM 999 on pve-root does not exist " +
        "(Configuration file 'nodes/pve-root/qemu-server/999.conf' does not exist). It was " +
        "deleted or moved outside Pulumi; `pulumi refresh` updates the state.",
    );
  });

  it("puts node and VMID from the path into the context", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/config",
      500,
      "VM is locked (backup)",
      undefined,
    );
    expect(error.context).toMatchObject({ node: "pve1", vmid: 100, lock: "backup" });
    expect(error.message).toBe(
      "POST /nodes/pve1/qemu/100/config: VM 100 on pve1 is locked (backup) by another " +
        "operation. It is retried until the budget runs out; if no task holds the lock, clear " +
        "it on the node with `qm unlock 100`.",
    );
  });

  it("puts the UPID from a task path into the context", () => {
    const upid = "UPID:pve1:0000AAAA:0000BBBB:67CC7B42:qmstart:100:root@pam!ci:";
    const error = classify(
      "GET",
      `/nodes/pve1/tasks/${upid}/status`,
      596,
      "Connection timed out",
      undefined,
    );
    expect(error.context).toMatchObject({ node: "pve1", upid, unavailable: "proxy-timeout" });
  });

  it("carries the errors map of a 400 and names each parameter", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/clone",
      400,
      "Parameter verification failed.",
      {
        data: null,
        errors: { name: "invalid format - value does not look like a valid DNS name\n" },
      },
    );
    expect(error.context.paramErrors).toEqual({
      name: "invalid format - value does not look like a valid DNS name",
    });
    expect(error.message).toBe(
      "POST /nodes/pve1/qemu/100/clone (VM 100 on pve1) was rejected: name: invalid " +
        "format - value does not look like a valid DNS name. Fix the named inputs; retrying " +
        "the same request cannot succeed.",
    );
  });

  it("splits 595 as node down and 596 timeouts as a proxy timeout", () => {
    const down = classify(
      "GET",
      "/nodes/pve2/qemu/100/status/current",
      595,
      "No route to host",
      undefined,
    );
    const slow = classify(
      "GET",
      "/nodes/pve2/qemu/100/status/current",
      596,
      "Connection timed out",
      undefined,
    );
    expect(down.context.unavailable).toBe("node-down");
    expect(down.message).toContain("could not reach node pve2 (595 No route to host)");
    expect(slow.context.unavailable).toBe("proxy-timeout");
    expect(slow.message).toContain("timed out inside the cluster (596 Connection timed out)");
  });

  it("reads the VMID of a lock timeout from the lock file name", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/clone",
      500,
      "can't lock file '/var/lock/qemu-server/lock-101.conf' - got timeout",
      undefined,
    );
    expect(error.context.vmid).toBe(100);
    const bare = classify(
      "GET",
      "/cluster/nextid",
      500,
      "can't lock file '/var/lock/qemu-server/lock-101.conf' - got timeout",
      undefined,
    );
    expect(bare.context.vmid).toBe(101);
  });

  it("says a 501 'Method … not implemented' means PVE lacks the call", () => {
    const error = classify(
      "GET",
      "/nodes/pve1/foo",
      501,
      "Method 'GET /nodes/pve1/foo' not implemented",
      undefined,
    );
    expect(error).toMatchObject({ code: "SERVER", transient: false });
    expect(error.message).toContain("PVE does not implement this call");
  });

  it("reads any other 501 as an error that escaped a handler before pve-http-server 5.2.0", () => {
    const error = classify(
      "PUT",
      "/nodes/pve1/qemu/100/config",
      501,
      "unable to parse value of 'net0' - format error",
      undefined,
    );
    expect(error).toMatchObject({ code: "SERVER", transient: false });
    expect(error.message).toBe(
      "PUT /nodes/pve1/qemu/100/config (VM 100 on pve1) failed on the server (501 unable to " +
        "parse value of 'net0' - format error)." +
        NEXT_UP,
    );
  });

  it("still recognises a known family in an old 501, such as a lock", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/status/start",
      501,
      "VM is locked (backup)",
      undefined,
    );
    expect(error).toMatchObject({ code: "LOCKED", transient: true });
  });

  it("makes an unmatched 500 a permanent SERVER error that says what the next up does", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/status/reboot",
      500,
      "VM 100 not running",
      undefined,
    );
    expect(isTransient(error)).toBe(false);
    expect(error.message).toBe(
      "POST /nodes/pve1/qemu/100/status/reboot (VM 100 on pve1) failed on the server " +
        "(500 VM 100 not running)." +
        NEXT_UP,
    );
  });

  it("tells of a 500 on the seed upload that the next up uploads it again", () => {
    const error = classify(
      "POST",
      "/nodes/pve2/storage/local/upload",
      500,
      "error writing file: No space left on device",
      undefined,
    );
    expect(error).toMatchObject({ code: "SERVER", transient: false });
    expect(error.message).not.toMatch(/will not help|cannot succeed/);
    expect(error.message).toContain("The next `pulumi up` sends it again");
  });
});
