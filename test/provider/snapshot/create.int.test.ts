import { describe, expect, it } from "vitest";
import { createVmSnapshot } from "../../../provider/snapshot/create.js";
import { failure } from "../../support/failure.js";
import { inputs, useSnapshotSimulator } from "./support.js";

const { sim, ctx } = useSnapshotSimulator();

describe("snapshot/create", () => {
  it("takes the snapshot and reads it back", async () => {
    const state = await createVmSnapshot(ctx(), inputs("before upgrade", { description: "pre" }));
    expect(state).toMatchObject({
      snapshotName: "before-upgrade",
      vmid: 100,
      node: "pve1",
      description: "pre",
      vmstate: false,
    });
    expect(state.snaptime).toBeGreaterThan(0);
    expect(sim().model.vms.get(100)?.snapshots?.["before-upgrade"]?.description).toBe("pre");
  });

  it("keeps a snapshot of its name and description that an interrupted create took", async () => {
    sim().faults.loseAnswers({ method: "POST", path: "/qemu/100/snapshot$" });
    await failure(createVmSnapshot(ctx(), inputs("lost-answer")));
    const again = await createVmSnapshot(ctx(), inputs("lost-answer"));
    expect(again.snapshotName).toBe("lost-answer");
    expect(Object.keys(sim().model.vms.get(100)?.snapshots ?? {})).toContain("lost-answer");
  });

  it("refuses a snapshot of that name it did not take, naming it", async () => {
    await createVmSnapshot(ctx(), inputs("taken", { description: "by hand" }));
    const error = await failure(createVmSnapshot(ctx(), inputs("taken")));
    expect(error.code).toBe("ALREADY_EXISTS");
    expect(error.message).toContain("VM 100 on pve1 already has a snapshot named taken");
  });

  it("says which storages can snapshot when a disk cannot", async () => {
    const error = await failure(createVmSnapshot(ctx(), inputs("raw", { vmid: 101 })));
    expect(error.code).toBe("UNSUPPORTED");
    expect(error.message).toMatch(/^VM 101 on pve1: PVE cannot snapshot one of its disks/);
  });

  it("finds a VM that moved to another node", async () => {
    sim().faults.migrateVm(100, "pve2");
    try {
      const state = await createVmSnapshot(ctx(), inputs("moved"));
      expect(state.node).toBe("pve2");
    } finally {
      sim().faults.migrateVm(100, "pve1");
    }
  });
});
