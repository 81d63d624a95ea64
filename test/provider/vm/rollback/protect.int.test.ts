import { simulatorContext } from "../../../support/test-context";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OperationContext } from "../../../../provider/pve/context";
import { isProxmoxError } from "../../../../provider/pve/errors";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { diffVm } from "../../../../provider/vm/operations/diff";
import { readVm } from "../../../../provider/vm/operations/read";
import { updateVm } from "../../../../provider/vm/operations/update";
import { UpdateUndoneError } from "../../../../provider/vm/rollback/protect";
import { IN_PROGRESS, KEPT } from "../../../../provider/vm/rollback/snapshot-name";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import type { VmState } from "../../../../provider/vm/state/vm-state";
import { startSimulator, type Simulator } from "../../../../simulator";

/** A protected update of a VM on lvmthin, over HTTP against the simulator. */

const resolve = (extra: Record<string, unknown> = {}) => {
  const checked = checkVm(
    {},
    {
      identity: { project: "int", stack: "rollback", name: "vm" },
      node: "pve1",
      template: 9000,
      storage: "local-lvm",
      cores: 1,
      diskSize: 4,
      rollbackOnFailure: true,
      ...extra,
    },
  );
  expect(checked.failures).toEqual([]);
  return checked.inputs as ResolvedInputs;
};

let sim: Simulator;
let ctx: OperationContext;
let progress: string[];
let warnings: string[];

beforeEach(async () => {
  sim = await startSimulator();
  progress = [];
  warnings = [];
  ctx = {
    ...simulatorContext(sim),
    progress: (m) => progress.push(m),
    warn: (m) => warnings.push(m),
  };
});
afterEach(() => sim.close());

const vm = (state: VmState) => {
  const record = sim.model.vms.get(state.vmid);
  if (record === undefined) throw new Error(`no VM ${state.vmid}`);
  return record;
};
const snapshotsOf = (state: VmState) => Object.keys(vm(state).snapshots ?? {});
const label = (state: VmState) => `VM ${state.vmid} on pve1`;

async function failureOf(run: Promise<unknown>): Promise<Error> {
  try {
    await run;
  } catch (error) {
    return error as Error;
  }
  throw new Error("the update succeeded");
}

describe("updateVm with rollbackOnFailure", () => {
  it("snapshots before a disruptive update and deletes the snapshot once it succeeded", async () => {
    const state = await createVm(ctx, resolve());
    progress = [];

    const updated = await updateVm(ctx, state, resolve({ cores: 2, diskSize: 6 }));

    expect(vm(updated).config).toMatchObject({ cores: 2, scsi0: expect.stringMatching(/size=6G/) });
    expect(snapshotsOf(updated)).toEqual([]);
    const taken = progress.findIndex((line) => /: snapshot taken \(pp-update-/.test(line));
    const applying = progress.indexOf(`${label(state)}: applying`);
    const growing = progress.findIndex((line) => line.includes("growing scsi0"));
    expect(taken).toBeGreaterThan(-1);
    expect([taken < applying, applying < growing]).toEqual([true, true]);
    expect(progress).toContain(
      `${label(state)}: the update is disruptive: cores waits for a reboot, scsi0 grows from 4 to 6 GiB`,
    );
  });

  it("takes no snapshot for tags and a description", async () => {
    const state = await createVm(ctx, resolve());
    progress = [];
    await updateVm(ctx, state, resolve({ tags: ["web"], description: "front" }));
    expect(progress.filter((line) => line.includes("snapshot"))).toEqual([]);
  });

  it("rolls back a failed reboot: old cores and disk size, running, no snapshot, an undone error", async () => {
    const state = await createVm(ctx, resolve());
    sim.faults.failTasks({ type: "qmreboot", id: String(state.vmid) }, "guest did not come back");

    const error = await failureOf(updateVm(ctx, state, resolve({ cores: 2, diskSize: 6 })));

    expect(error).toBeInstanceOf(UpdateUndoneError);
    expect(error.message).toMatch(
      /guest did not come back; rolled back to the state before this update \(snapshot pp-update-[0-9a-f]{8}-[0-9a-z]+, now deleted\) and started again\./,
    );
    expect(vm(state).config).toMatchObject({ cores: 1, scsi0: expect.stringMatching(/size=4G/) });
    expect(vm(state).status).toBe("running");
    expect(snapshotsOf(state)).toEqual([]);
    expect(progress.some((line) => line.startsWith(`${label(state)}: rolling back (`))).toBe(true);
    expect(progress.some((line) => /: rolled back in \d+ s$/.test(line))).toBe(true);
  });

  it("deletes a disk the rolled-back update added, which PVE's rollback keeps as unused", async () => {
    const state = await createVm(ctx, resolve());
    sim.faults.failTasks({ type: "qmreboot", id: String(state.vmid) }, "guest did not come back");
    const disks = [
      { interface: "scsi0", sizeGiB: 4 },
      { interface: "scsi1", storage: "local-lvm", sizeGiB: 2 },
    ];

    await failureOf(updateVm(ctx, state, resolve({ diskSize: undefined, disks, cores: 2 })));

    const config = vm(state).config;
    expect(Object.keys(config).filter((key) => /^(scsi1|unused\d+)$/.test(key))).toEqual([]);
    expect(
      sim.model.volumes("pve1", "local-lvm").filter((v) => v.vmid === state.vmid),
    ).toHaveLength(1);
  });

  it("keeps the last two snapshots of successful updates with keep: 2", async () => {
    let state = await createVm(ctx, resolve());
    for (const cores of [2, 3, 4]) {
      state = await updateVm(ctx, state, resolve({ cores, rollbackOnFailure: { keep: 2 } }));
    }
    const kept = Object.values(vm(state).snapshots ?? {});
    expect(kept.map((s) => s.description?.trim())).toEqual([KEPT, KEPT]);
  });

  it("finishes under the snapshot a killed run left, and deletes it", async () => {
    const state = await createVm(ctx, resolve());
    const upid = await ctx.api.createSnapshot("pve1", state.vmid, {
      name: "pp-update-0badc0de-1",
      description: IN_PROGRESS,
    });
    await ctx.waitForTask("pve1", upid, { budgetMs: 60_000, step: "left by a killed run" });
    progress = [];

    const updated = await updateVm(ctx, state, resolve({ cores: 2 }));

    expect(progress).toContain(
      `${label(state)}: finishing the update an interrupted run left under snapshot pp-update-0badc0de-1`,
    );
    expect(progress.filter((line) => line.includes("snapshot taken"))).toEqual([]);
    expect(vm(updated).config["cores"]).toBe(2);
    expect(snapshotsOf(updated)).toEqual([]);
  });

  it("finishes an update a run killed after its last write left: read reports it, update deletes its snapshot", async () => {
    const state = await createVm(ctx, resolve());
    const upid = await ctx.api.createSnapshot("pve1", state.vmid, {
      name: "pp-update-0badc0de-2",
      description: IN_PROGRESS,
    });
    await ctx.waitForTask("pve1", upid, { budgetMs: 60_000, step: "left by a killed run" });
    // The killed run's write and reboot had gone through: the VM already has 2 cores.
    vm(state).config["cores"] = 2;

    const read = await readVm(ctx, state);
    expect(read?.unfinishedUpdate).toBe("pp-update-0badc0de-2");
    expect(diffVm(read ?? {}, resolve({ cores: 2 })).changed).toEqual(["unfinishedUpdate"]);
    progress = [];

    const updated = await updateVm(ctx, read as VmState, resolve({ cores: 2 }));

    expect(progress).toContain(
      `${label(state)}: finishing the update an interrupted run left under snapshot pp-update-0badc0de-2`,
    );
    expect(snapshotsOf(updated)).toEqual([]);
    expect(updated.unfinishedUpdate).toBeUndefined();
    expect(vm(updated).config["cores"]).toBe(2);
  });

  it("refuses a disk move before anything is written, naming the input and both storages", async () => {
    const state = await createVm(ctx, resolve());
    const disks = [{ interface: "scsi0", storage: "shared", sizeGiB: 4 }];

    const error = await failureOf(
      updateVm(ctx, state, resolve({ diskSize: undefined, disks, cores: 2 })),
    );

    expect(error).toBeInstanceOf(UpdateUndoneError);
    expect(isProxmoxError(error) && error.code).toBe("UNSUPPORTED");
    expect(error.message).toMatch(
      new RegExp(
        `^disks\\[0\\]\\.storage: moving disk scsi0 of ${label(state)} from storage local-lvm to shared`,
      ),
    );
    expect(vm(state).config["cores"]).toBe(1);
    expect(snapshotsOf(state)).toEqual([]);
  });
});
