import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  hasCode,
  isPermanent,
  isProxmoxError,
  isTransient,
  PermanentError,
  ProxmoxError,
  TransientError,
} from "../../provider/errors.js";

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
});
