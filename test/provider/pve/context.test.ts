import { afterEach, describe, expect, it, vi } from "vitest";
import type { ProxmoxApi } from "../../../provider/pve/api/proxmox-api.js";
import { operationContext } from "../../../provider/pve/context.js";

afterEach(() => void vi.useRealTimers());

describe("operationContext", () => {
  it("says a create waits for a heavy-task slot, every 15 s how long, and how long it waited", async () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const log = { progress: (line: string) => void lines.push(line), warn: () => undefined };
    // No request is sent: the slots are the process's own.
    const ctx = operationContext({} as ProxmoxApi, () => Promise.resolve([]), log, {
      heavyTasksPerNode: 1,
    });
    let endFirst: () => void = () => undefined;
    const first = ctx.withHeavyTaskSlot(
      "pve1",
      "web-0: cloning template 9000",
      () => new Promise<void>((resolve) => (endFirst = resolve)),
    );
    const second = ctx.withHeavyTaskSlot("pve1", "web-1: cloning template 9000", () =>
      Promise.resolve("cloned"),
    );
    await vi.advanceTimersByTimeAsync(31_000);
    endFirst();
    await first;
    expect(await second).toBe("cloned");
    expect(lines).toEqual([
      "web-1: cloning template 9000: waiting for a heavy-task slot on pve1 (all 1 taken; proxmox:heavyTasksPerNode)",
      "web-1: cloning template 9000: waiting for a heavy-task slot on pve1 (15 s)",
      "web-1: cloning template 9000: waiting for a heavy-task slot on pve1 (30 s)",
      "web-1: cloning template 9000: got a heavy-task slot on pve1 after 31.0 s",
    ]);
    // The wait's timer is gone with it: no line after the slot was granted.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(lines).toHaveLength(4);
  });
});
