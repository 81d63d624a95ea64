import { simulatorContext } from "../../../support/test-context";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import { updateVm } from "../../../../provider/vm/operations/update";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { startSimulator, type Simulator } from "../../../../simulator";

/** A running VM's disk I/O options and NIC link, changed over HTTP against the simulator. */

const resolve = (inputs: Record<string, unknown>) => {
  const checked = checkVm(
    {},
    {
      identity: { project: "int", stack: "io", name: "io" },
      node: "pve1",
      template: 9000,
      ...inputs,
    },
  );
  expect(checked.failures).toEqual([]);
  return checked.inputs as ResolvedInputs;
};

let sim: Simulator;
let ctx: OperationContext;
let progress: string[];

beforeEach(async () => {
  sim = await startSimulator();
  progress = [];
  ctx = {
    ...simulatorContext(sim),
    progress: (m) => progress.push(m),
    warn: () => undefined,
  };
});
afterEach(() => sim.close());

const nic = { bridge: "vmbr0", trunks: [10, 20] };

describe("a running VM's disk I/O limits and NIC link", () => {
  it("applies new I/O limits and a pulled cable at once, with no reboot", async () => {
    const disk = { interface: "scsi0", sizeGiB: 2, ioLimits: { readMBps: 100, readIops: 500 } };
    const state = await createVm(ctx, resolve({ disks: [disk], networks: [nic] }));
    const vm = sim.model.vms.get(state.vmid);
    expect(vm?.config["scsi0"]).toMatch(/,iops_rd=500,mbps_rd=100,/);
    const startedAt = vm?.startedAt;

    const ioLimits = { readMBps: 50, writeIops: 200, writeBurstIops: 400, burstSeconds: 5 };
    const updated = await updateVm(
      ctx,
      state,
      resolve({ disks: [{ ...disk, ioLimits }], networks: [{ ...nic, linkDown: true }] }),
    );

    expect(progress.filter((line) => /rebooting|shutting down/.test(line))).toEqual([]);
    expect(sim.model.vms.get(state.vmid)?.startedAt).toBe(startedAt);
    expect(sim.model.vms.get(state.vmid)?.config["scsi0"]).toMatch(
      /,iops_wr=200,iops_wr_max=400,iops_wr_max_length=5,mbps_rd=50,size=2G$/,
    );
    expect(updated).toMatchObject({
      disks: [{ ...disk, ioLimits }],
      networks: [{ linkDown: true, trunks: [10, 20] }],
      pendingChanges: [],
    });
    await deleteVm(ctx, updated);
  });

  it("reboots a running VM to apply an aio change, which PVE keeps pending", async () => {
    const disk = { interface: "scsi0", sizeGiB: 2, aio: "io_uring" };
    const state = await createVm(ctx, resolve({ disks: [disk] }));

    const updated = await updateVm(ctx, state, resolve({ disks: [{ ...disk, aio: "threads" }] }));

    expect(progress).toContain(`VM ${state.vmid} on pve1: rebooting to apply scsi0`);
    expect(updated).toMatchObject({ disks: [{ aio: "threads" }], pendingChanges: [] });
    await deleteVm(ctx, updated);
  });
});
