import * as pulumi from "@pulumi/pulumi";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { withoutLeakTraces } from "../../../provider/glue/construction-traces";
import { ProxmoxVm } from "../../../provider/vm/resource";

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => ({ id: "vm-id", state: { ...args.inputs, vmid: 12345 } }),
      call: (args) => args.inputs,
    },
    "traces-project",
    "dev",
    false,
  );
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("withoutLeakTraces", () => {
  it("turns stack traces off until restored, then gives back the limit it found", () => {
    const found = Error.stackTraceLimit;
    const restore = withoutLeakTraces();
    expect(Error.stackTraceLimit).toBe(0);
    expect(new Error("x").stack).toBe("Error: x");
    restore();
    expect(Error.stackTraceLimit).toBe(found);
  });

  it("leaves the limit alone when PULUMI_DEBUG_PROMISE_LEAKS asks for leak traces", () => {
    vi.stubEnv("PULUMI_DEBUG_PROMISE_LEAKS", "1");
    const found = Error.stackTraceLimit;
    const restore = withoutLeakTraces();
    expect(Error.stackTraceLimit).toBe(found);
    restore();
    expect(Error.stackTraceLimit).toBe(found);
  });
});

describe("ProxmoxVm construction", () => {
  it("restores the stack trace limit, and its outputs still resolve", async () => {
    const found = Error.stackTraceLimit;
    const vm = new ProxmoxVm("traced", { node: "pve1", template: 9000 });
    expect(Error.stackTraceLimit).toBe(found);
    await expect(new Promise((done) => vm.vmid.apply(done))).resolves.toBe(12345);
  });

  it("restores the stack trace limit when Pulumi refuses the resource", () => {
    const found = Error.stackTraceLimit;
    // A resource option Pulumi rejects while constructing.
    expect(
      () => new ProxmoxVm("refused", { node: "pve1", template: 9000 }, { parent: {} as never }),
    ).toThrow();
    expect(Error.stackTraceLimit).toBe(found);
  });
});
