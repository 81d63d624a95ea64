import { afterAll, beforeAll } from "vitest";
import { closeSharedDispatchers } from "../../../provider/pve/api/dispatcher-registry.js";
import type { OperationContext } from "../../../provider/pve/context.js";
import { startSimulator, type Simulator } from "../../../simulator/index.js";
import { simulatorContext } from "../../support/test-context.js";

/** A simulator with VMs 100 (linked clone, qcow2 on NFS) and 101 (raw full clone on NFS). */
export function useSnapshotSimulator(): { sim: () => Simulator; ctx: () => OperationContext } {
  let sim: Simulator | undefined;
  let ctx: OperationContext | undefined;
  beforeAll(async () => {
    sim = await startSimulator({ defaultTaskMs: 20, guestBootMs: 20 });
    const context = simulatorContext(sim);
    for (const [newid, full] of [
      [100, false],
      [101, true],
    ] as const) {
      const upid = await context.api.cloneVm({
        node: "pve1",
        vmid: 9000,
        newid,
        name: `vm${newid}`,
        full,
        ...(full ? { storage: "shared" } : {}),
      });
      await context.waitForTask("pve1", upid, { budgetMs: 10_000, step: "clone" });
    }
    ctx = context;
  });
  afterAll(async () => {
    await closeSharedDispatchers();
    await sim?.close();
  });
  const must = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} has not started`);
    return value;
  };
  return { sim: () => must(sim, "the simulator"), ctx: () => must(ctx, "the context") };
}

export const inputs = (resourceName: string, extra: Record<string, unknown> = {}) => ({
  resourceName,
  vmid: 100,
  node: "pve1",
  description: "",
  includeRam: false,
  ...extra,
});
