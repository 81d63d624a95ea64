import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  aboutVmOnce,
  hasCode,
  isPermanent,
  isProxmoxError,
  isTransient,
  PermanentError,
  ProxmoxError,
  TransientError,
} from "../../../provider/pve/errors.js";

describe("errors", () => {
  it("recognises errors by brand, even from another copy of the module", () => {
    const foreign = Object.defineProperty(new Error("x"), Symbol.for("pulumi-proxmox.error"), {
      value: true,
    });
    expect(foreign instanceof ProxmoxError).toBe(true);
    expect(new TransientError("LOCKED", "l") instanceof PermanentError).toBe(false);
    expect(isTransient(new TransientError("LOCKED", "l"))).toBe(true);
    expect(isPermanent(new PermanentError("AUTH", "a"))).toBe(true);
    expect(isProxmoxError(new Error("plain"))).toBe(false);
    expect(hasCode(new PermanentError("AUTH", "a"), "AUTH")).toBe(true);
  });

  it("serialises code, message and context but not the cause", () => {
    const error = new PermanentError(
      "NOT_FOUND",
      "gone",
      { status: 500, vmid: 100 },
      { cause: new Error("inner detail") },
    );
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: "PermanentError",
      code: "NOT_FOUND",
      transient: false,
      message: "gone",
      context: { status: 500, vmid: 100 },
    });
    expect(error.status).toBe(500);
    expect(inspect(error)).toContain("code: 'NOT_FOUND'");
  });

  it("names the VM once: an error that names it already is left as it is", () => {
    const bare = new PermanentError("TASK_FAILED", "task qmcreate failed: disk full");
    const named = aboutVmOnce(bare, { node: "pve1", vmid: 120 }, "creating template t");
    expect(named).toMatchObject({
      code: "TASK_FAILED",
      message: "VM 120 on pve1: creating template t failed: task qmcreate failed: disk full",
    });
    expect(aboutVmOnce(named, { node: "pve1", vmid: 120 }, "making template t")).toBe(named);
    // VM 1200 is not VM 120.
    const other = new PermanentError("TASK_FAILED", "VM 1200: gone");
    expect(aboutVmOnce(other, { vmid: 120 }, "x")).not.toBe(other);
  });
});
