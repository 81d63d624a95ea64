import { describe, expect, it } from "vitest";
import { rollbackToSnapshot } from "../../../provider/pve/snapshot-tasks.js";
import { createVmSnapshot } from "../../../provider/snapshot/create.js";
import { readSnapshot } from "../../../provider/snapshot/read.js";
import { inputs, useSnapshotSimulator } from "./support.js";

const { sim, ctx } = useSnapshotSimulator();

describe("snapshot/read", () => {
  it("reads a snapshot deleted outside Pulumi as gone", async () => {
    const state = await createVmSnapshot(ctx(), inputs("gone-by-hand"));
    delete sim().model.vms.get(100)?.snapshots?.["gone-by-hand"];
    expect(await readSnapshot(ctx(), state)).toBeUndefined();
  });

  it("reads a description changed by hand back as drift", async () => {
    const state = await createVmSnapshot(ctx(), inputs("described"));
    await ctx().api.updateSnapshot("pve1", 100, "described", "edited in the UI");
    expect((await readSnapshot(ctx(), state))?.description).toBe("edited in the UI");
  });

  it("notices a rollback to it made outside Pulumi", async () => {
    const state = await createVmSnapshot(ctx(), inputs("restored"));
    expect((await readSnapshot(ctx(), state))?.rolledBackAt).toBeUndefined();
    await rollbackToSnapshot(ctx(), { node: "pve1", vmid: 100 }, "restored", { start: false });
    const read = await readSnapshot(ctx(), state);
    expect(read?.rolledBackAt).toBeGreaterThanOrEqual(state.snaptime);
  });

  it("reads the snapshots of a VM that is gone as gone", async () => {
    const state = await createVmSnapshot(ctx(), inputs("with-vm", { vmid: 100 }));
    expect(await readSnapshot(ctx(), { ...state, vmid: 555 })).toBeUndefined();
  });
});
