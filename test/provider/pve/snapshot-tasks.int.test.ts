import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeSharedDispatchers } from "../../../provider/pve/api/dispatcher-registry.js";
import type { OperationContext } from "../../../provider/pve/context.js";
import {
  deleteSnapshot,
  listSnapshots,
  rollbackToSnapshot,
  takeSnapshot,
} from "../../../provider/pve/snapshot-tasks.js";
import { startSimulator, type Simulator } from "../../../simulator/index.js";
import { failure } from "../../support/failure.js";
import { simulatorContext } from "../../support/test-context.js";

let sim: Simulator;
let ctx: OperationContext;
const vm = { node: "pve1", vmid: 100 };

beforeAll(async () => {
  sim = await startSimulator({ defaultTaskMs: 20, guestBootMs: 20 });
  ctx = simulatorContext(sim);
  await ctx.waitForTask(
    "pve1",
    await ctx.api.cloneVm({ node: "pve1", vmid: 9000, newid: 100, name: "web", full: false }),
    { budgetMs: 10_000, step: "clone" },
  );
});

afterAll(async () => {
  await closeSharedDispatchers();
  await sim.close();
});

describe("snapshot-tasks against the simulator", () => {
  it("takes, lists, describes, rolls back to and deletes a snapshot", async () => {
    await takeSnapshot(ctx, vm, { name: "before-upgrade", description: "pre" });
    await takeSnapshot(ctx, vm, { name: "second" });
    const listed = await listSnapshots(ctx, vm);
    expect(listed.parent).toBe("second");
    expect(listed.snapshots.map((s) => [s.name, s.description, s.vmstate, s.parent])).toEqual([
      ["before-upgrade", "pre", false, undefined],
      ["second", "", false, "before-upgrade"],
    ]);
    await ctx.api.updateSnapshot("pve1", 100, "second", "changed");
    expect((await listSnapshots(ctx, vm)).snapshots[1]?.description).toBe("changed");

    sim.faults.setConfig(100, { cores: 8 });
    await rollbackToSnapshot(ctx, vm, "before-upgrade", { start: true });
    expect(sim.model.vms.get(100)?.config["cores"]).toBe(2);
    expect(sim.model.vms.get(100)?.status).toBe("running");
    expect((await listSnapshots(ctx, vm)).parent).toBe("before-upgrade");

    expect(await deleteSnapshot(ctx, vm, "second")).toBe("deleted");
    expect(await deleteSnapshot(ctx, vm, "second")).toBe("gone");
    expect((await listSnapshots(ctx, vm)).snapshots.map((s) => s.name)).toEqual(["before-upgrade"]);
  });

  it("fails a used name with the task's typed error", async () => {
    const error = await failure(takeSnapshot(ctx, vm, { name: "before-upgrade" }));
    expect(error).toMatchObject({
      code: "TASK_FAILED",
      context: { taskErrorCode: "ALREADY_EXISTS", vmid: 100 },
    });
  });

  it("counts a snapshot of a VM that is gone as deleted", async () => {
    expect(await deleteSnapshot(ctx, { node: "pve1", vmid: 555 }, "any")).toBe("gone");
  });
});
