import { describe, expect, it } from "vitest";
import { createVmSnapshot } from "../../../provider/snapshot/create.js";
import { deleteVmSnapshot } from "../../../provider/snapshot/delete.js";
import { inputs, useSnapshotSimulator } from "./support.js";

const { sim, ctx } = useSnapshotSimulator();
const names = () => Object.keys(sim().model.vms.get(100)?.snapshots ?? {});

describe("snapshot/delete", () => {
  it("deletes the snapshot, and succeeds when it is already gone", async () => {
    const state = await createVmSnapshot(ctx(), inputs("short-lived"));
    await deleteVmSnapshot(ctx(), state);
    expect(names()).not.toContain("short-lived");
    await deleteVmSnapshot(ctx(), state);
  });

  it("succeeds when the VM is gone with its snapshots", async () => {
    const state = await createVmSnapshot(ctx(), inputs("vm-goes"));
    await deleteVmSnapshot(ctx(), { ...state, vmid: 555 });
    expect(names()).toContain("vm-goes");
  });
});
