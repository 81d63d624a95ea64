import { describe, expect, it } from "vitest";
import type { ProxmoxApi } from "../../../../provider/pve/api/proxmox-api.js";
import { hadNoEffect, retryingApi } from "../../../../provider/pve/api/retrying-api.js";
import { PermanentError, TransientError } from "../../../../provider/pve/errors.js";
import type { Clock } from "../../../../provider/pve/retry.js";
import { failure } from "../../../support/failure.js";

/** A clock whose sleeps return at once and move time on, recording each delay. */
function fakeClock(): Clock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: (ms) => {
      slept.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

const proxyTimeout = () =>
  new TransientError("UNAVAILABLE", "GET /cluster/resources: 596 Connection timed out", {
    status: 596,
    pveMessage: "Connection timed out",
    unavailable: "proxy-timeout",
  });

function withCause(code: string): Error {
  return Object.assign(new Error(code), { code });
}

const networkError = (socketCode: string) =>
  new TransientError(
    "NETWORK",
    "POST /nodes/pve1/qemu/9000/clone: cannot talk",
    {},
    {
      cause: withCause(socketCode),
    },
  );

/** An api whose `method` fails with the given errors, then resolves with `value`. */
function failing(method: keyof ProxmoxApi, errors: Error[], value: unknown) {
  let calls = 0;
  const api = {
    [method]: () => {
      calls++;
      const error = errors.shift();
      return error === undefined ? Promise.resolve(value) : Promise.reject(error);
    },
  } as unknown as ProxmoxApi;
  return { api, calls: () => calls };
}

function setup(method: keyof ProxmoxApi, errors: Error[], value: unknown) {
  const inner = failing(method, errors, value);
  const clock = fakeClock();
  const lines: string[] = [];
  const api = retryingApi(inner.api, {
    progress: (line) => lines.push(line),
    clock,
    random: () => 0.5,
    initialDelayMs: 1_000,
  });
  return { api, clock, lines, calls: inner.calls };
}

describe("retryingApi", () => {
  it("retries a GET answered 596 and prints the attempt and the delay", async () => {
    const { api, clock, lines, calls } = setup("clusterVms", [proxyTimeout()], []);
    await expect(api.clusterVms()).resolves.toEqual([]);
    expect(calls()).toBe(2);
    expect(clock.slept).toEqual([750]);
    expect(lines).toEqual([
      "GET /cluster/resources: 596 Connection timed out, retrying (attempt 2 of 6, in 0.8 s)",
    ]);
  });

  it("backs off exponentially and gives up after the last attempt with the last error", async () => {
    const errors = Array.from({ length: 6 }, proxyTimeout);
    const { api, clock, calls } = setup("nodes", errors, []);
    await expect(api.nodes()).rejects.toMatchObject({ code: "UNAVAILABLE", status: 596 });
    expect(calls()).toBe(6);
    expect(clock.slept).toEqual([750, 1_500, 3_000, 6_000, 6_000]);
  });

  it("stops retrying when the next delay would pass the call's budget", async () => {
    const inner = failing("nodes", Array.from({ length: 6 }, proxyTimeout), []);
    const clock = fakeClock();
    const api = retryingApi(inner.api, {
      progress: () => undefined,
      clock,
      random: () => 0.5,
      initialDelayMs: 1_000,
      budgetMs: 3_000,
    });
    await expect(api.nodes()).rejects.toMatchObject({ code: "UNAVAILABLE" });
    expect(clock.slept).toEqual([750, 1_500]);
    expect(inner.calls()).toBe(3);
  });

  it("retries a request that timed out after the whole budget, as the budget runs from the first failure", async () => {
    const clock = fakeClock();
    let calls = 0;
    const inner = {
      nodes: async () => {
        calls++;
        if (calls > 1) return [];
        await clock.sleep(60_000); // the client's request timeout, spent before the failure
        throw new TransientError("TIMEOUT", "GET /nodes: no answer within 60 s", {});
      },
    } as unknown as ProxmoxApi;
    const api = retryingApi(inner, {
      progress: () => undefined,
      clock,
      random: () => 0.5,
      initialDelayMs: 1_000,
      budgetMs: 60_000,
    });
    await expect(api.nodes()).resolves.toEqual([]);
    expect(calls).toBe(2);
  });

  it("throws a permanent error at once", async () => {
    const missing = new PermanentError("NOT_FOUND", "VM 100 does not exist");
    const { api, calls, lines } = setup("vmConfig", [missing], {});
    await expect(api.vmConfig("pve1", 100)).rejects.toBe(missing);
    expect(calls()).toBe(1);
    expect(lines).toEqual([]);
  });

  it("retries a DELETE whose connection was reset, naming node and VMID", async () => {
    const { api, lines, calls } = setup("destroyVm", [networkError("ECONNRESET")], "UPID:x");
    await expect(api.destroyVm("pve1", 101)).resolves.toBe("UPID:x");
    expect(calls()).toBe(2);
    expect(lines[0]).toBe(
      "DELETE VM (node pve1, VM 101): connection failed (ECONNRESET), retrying (attempt 2 of 6, in 0.8 s)",
    );
  });

  it("does not re-send a clone whose connection was reset after sending", async () => {
    const reset = networkError("ECONNRESET");
    const { api, calls } = setup("cloneVm", [reset], "UPID:clone");
    const request = { node: "pve1", vmid: 9000, newid: 101, name: "a", full: true };
    const error = await api.cloneVm(request).catch((e: unknown) => e as TransientError);
    expect(calls()).toBe(1);
    expect(error).toMatchObject({ code: "NETWORK", cause: reset.cause });
    expect(hadNoEffect(error as TransientError)).toBe(false);
  });

  it("says a request that may have been carried out was not sent again, and what to do", async () => {
    const { api } = setup("cloneVm", [networkError("ECONNRESET")], "UPID:clone");
    const request = { node: "pve1", vmid: 9000, newid: 101, name: "a", full: true };
    const { message } = await failure(api.cloneVm(request));
    expect(message).toBe(
      "POST /nodes/pve1/qemu/9000/clone: cannot talk Not sent again, since PVE may have carried " +
        "it out; run the command again: it reads what was done and carries on.",
    );
    expect(message).not.toMatch(/\bretried\b/);
  });

  it("says how often a request was sent when its retries ran out", async () => {
    const { api } = setup("nodes", Array.from({ length: 6 }, proxyTimeout), []);
    const { message } = await failure(api.nodes());
    expect(message).toBe(
      "GET /cluster/resources: 596 Connection timed out Sent 6 times; it failed each time.",
    );
  });

  it("adds nothing to a transient answer its caller polls through", async () => {
    const status = setup("taskStatus", [proxyTimeout()], {});
    const { message } = await failure(status.api.taskStatus("pve1", "UPID:t"));
    expect(message).toBe("GET /cluster/resources: 596 Connection timed out");
  });

  it("re-sends a clone whose connection was refused before it reached PVE", async () => {
    const { api, calls, lines } = setup("cloneVm", [networkError("ECONNREFUSED")], "UPID:c");
    const request = { node: "pve1", vmid: 9000, newid: 101, name: "a", full: true };
    await expect(api.cloneVm(request)).resolves.toBe("UPID:c");
    expect(calls()).toBe(2);
    expect(lines[0]).toContain("POST clone (node pve1, VM 101)");
  });

  it.each([
    ["createVm", () => ({ node: "pve1", vmid: 7100, config: { name: "t" } })],
    [
      "downloadUrl",
      () => ({
        node: "pve1",
        storage: "local",
        url: "http://127.0.0.1/a.qcow2",
        filename: "a.qcow2",
        content: "import",
      }),
    ],
  ] as const)(
    "does not re-send %s after a 596, which may have been applied",
    async (method, arg) => {
      const { api, calls } = setup(method, [proxyTimeout()], "UPID:x");
      const call = api[method] as (request: unknown) => Promise<unknown>;
      await expect(call.call(api, arg())).rejects.toMatchObject({ status: 596 });
      expect(calls()).toBe(1);
    },
  );

  it("re-sends a download and a template conversion whose connection was refused", async () => {
    const download = setup("downloadUrl", [networkError("ECONNREFUSED")], "UPID:d");
    await download.api.downloadUrl({
      node: "pve1",
      storage: "local",
      url: "http://127.0.0.1/a.qcow2",
      filename: "a.qcow2",
      content: "import",
    });
    expect(download.calls()).toBe(2);
    expect(download.lines[0]).toContain("POST download-url (node pve1)");
    const convert = setup("convertToTemplate", [networkError("ECONNREFUSED")], "UPID:t");
    await expect(convert.api.convertToTemplate("pve1", 7100)).resolves.toBe("UPID:t");
    expect(convert.calls()).toBe(2);
    expect(convert.lines[0]).toContain("POST template (node pve1, VM 7100)");
  });

  it("does not re-send a reboot answered 596, which may have been applied", async () => {
    const { api, calls } = setup("rebootVm", [proxyTimeout()], "UPID:r");
    await expect(api.rebootVm("pve1", 101)).rejects.toMatchObject({ status: 596 });
    expect(calls()).toBe(1);
  });

  it("treats a config change with a digest like a non-idempotent request", async () => {
    const { api, calls } = setup("updateVmConfig", [proxyTimeout()], null);
    await expect(
      api.updateVmConfig("pve1", 101, { set: { cores: 2 }, digest: "abc" }),
    ).rejects.toMatchObject({ status: 596 });
    expect(calls()).toBe(1);
  });

  it("retries a config change without a digest", async () => {
    const { api, calls } = setup("updateVmConfig", [proxyTimeout()], null);
    await expect(api.updateVmConfig("pve1", 101, { set: { cores: 2 } })).resolves.toBeNull();
    expect(calls()).toBe(2);
  });

  it("leaves the task-status poll and a guest agent that is not running to their callers", async () => {
    const agent = new TransientError("UNAVAILABLE", "QEMU guest agent is not running", {
      unavailable: "agent-not-running",
    });
    const first = setup("agentInterfaces", [agent], []);
    await expect(first.api.agentInterfaces("pve1", 101)).rejects.toBe(agent);
    expect(first.calls()).toBe(1);
    const second = setup("taskStatus", [proxyTimeout()], {});
    await expect(second.api.taskStatus("pve1", "UPID:t")).rejects.toMatchObject({ status: 596 });
    expect(second.calls()).toBe(1);
  });

  it("reports an aborted back-off as ABORTED", async () => {
    const inner = failing("nodes", [proxyTimeout()], []);
    const controller = new AbortController();
    const api = retryingApi(inner.api, {
      progress: () => controller.abort(),
      signal: controller.signal,
      clock: {
        now: () => 0,
        sleep: (_ms, signal) =>
          signal?.aborted ? Promise.reject(new Error("aborted")) : Promise.resolve(),
      },
    });
    await expect(api.nodes()).rejects.toMatchObject({ code: "ABORTED" });
  });

  describe("hadNoEffect", () => {
    it("holds for a refused connection, a 595, a lock and no quorum", () => {
      expect(hadNoEffect(networkError("ECONNREFUSED"))).toBe(true);
      expect(
        hadNoEffect(
          new TransientError("UNAVAILABLE", "595", { status: 595, unavailable: "node-down" }),
        ),
      ).toBe(true);
      expect(hadNoEffect(new TransientError("LOCKED", "VM is locked (backup)"))).toBe(true);
      expect(
        hadNoEffect(
          new TransientError("UNAVAILABLE", "no quorum", { status: 500, unavailable: "no-quorum" }),
        ),
      ).toBe(true);
    });

    it("fails for a reset connection, a timeout, a 596 and a gateway timeout", () => {
      expect(hadNoEffect(networkError("ECONNRESET"))).toBe(false);
      expect(hadNoEffect(new TransientError("TIMEOUT", "no answer"))).toBe(false);
      expect(hadNoEffect(proxyTimeout())).toBe(false);
      expect(hadNoEffect(new TransientError("UNAVAILABLE", "504", { status: 504 }))).toBe(false);
      expect(hadNoEffect(new TransientError("UNAVAILABLE", "597", { status: 597 }))).toBe(false);
    });
  });
});
