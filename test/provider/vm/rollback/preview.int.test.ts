import { simulatorContext } from "../../../support/test-context";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { previewRollback } from "../../../../provider/vm/rollback/preview";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import type { VmState } from "../../../../provider/vm/state/vm-state";
import { startSimulator, type Simulator } from "../../../../simulator";

/** The template's disk is on NFS (raw), which PVE cannot snapshot. */
const resolve = (extra: Record<string, unknown> = {}) =>
  checkVm(
    {},
    {
      identity: { project: "int", stack: "preview", name: "nfs" },
      node: "pve1",
      template: 9000,
      cores: 1,
      ...extra,
    },
  ).inputs as ResolvedInputs;

let sim: Simulator;
let ctx: OperationContext;
let vm: VmState;

beforeAll(async () => {
  sim = await startSimulator();
  ctx = { ...simulatorContext(sim), progress: () => {}, warn: () => {} };
  vm = await createVm(ctx, resolve());
  // A preview runs in a provider process of its own, whose listing is read after the create.
  ctx.api.invalidateClusterVms?.();
});
afterAll(() => sim.close());

describe("previewRollback", () => {
  it("refuses a disruptive update of a VM whose disk PVE cannot snapshot, naming disk and storage", async () => {
    const failures = await previewRollback(ctx, resolve({ cores: 2, rollbackOnFailure: true }));
    expect(failures).toEqual([
      {
        property: "rollbackOnFailure",
        reason: expect.stringMatching(
          new RegExp(
            `^disk scsi0 of VM ${vm.vmid} on pve1 is a raw volume on storage shared \\(nfs\\)`,
          ),
        ) as unknown as string,
      },
    ]);
    expect(sim.model.vms.get(vm.vmid)?.config["cores"]).toBe(1);
  });

  it("lets an update that takes no snapshot through, and a VM the cluster does not have", async () => {
    expect(await previewRollback(ctx, resolve({ tags: ["web"], rollbackOnFailure: true }))).toEqual(
      [],
    );
    const other = resolve({ cores: 2, rollbackOnFailure: true, identity: undefined });
    const elsewhere = { ...other, identity: { project: "int", stack: "preview", name: "none" } };
    expect(await previewRollback(ctx, elsewhere)).toEqual([]);
  });
});
