import { afterEach, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { readVm } from "../../../../provider/vm/operations/read";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { updateVm } from "../../../../provider/vm/operations/update";
import type { VmState } from "../../../../provider/vm/state/vm-state";
import { VmInitError } from "../../../../provider/vm/init-error";
import { simulatorContext } from "../../../support/test-context";

const resolve = (disks: readonly Record<string, unknown>[]) => {
  const { inputs, failures } = checkVm(
    {},
    {
      identity: { project: "int", stack: "test", name: "db" },
      node: "pve1",
      template: 9000,
      waitForIp: false,
      disks,
    },
  );
  expect(failures).toEqual([]);
  return inputs as ResolvedInputs;
};

let sim: Simulator | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await sim?.close();
});

async function context(): Promise<OperationContext> {
  sim = await startSimulator({ guestBootMs: 20 });
  vi.spyOn(console, "log").mockImplementation(() => undefined);
  return simulatorContext(sim);
}

const configOf = (state: VmState) => sim?.model.vms.get(state.vmid)?.config ?? {};

describe("the disks of a VM on the simulator", () => {
  it("are created grown and added, then grown, changed and detached in place, with no drift", async () => {
    const ctx = await context();
    const created = await createVm(
      ctx,
      resolve([
        { interface: "scsi0", sizeGiB: 4 },
        { interface: "scsi1", storage: "local-lvm", sizeGiB: 8, backup: false },
      ]),
    );
    expect(configOf(created)).toMatchObject({
      scsi0: expect.stringMatching(/^shared:vm-\d+-disk-0,.*size=4G/),
      scsi1: expect.stringMatching(/^local-lvm:vm-\d+-disk-\d+,backup=0,size=8G$/),
    });

    const updated = await updateVm(
      ctx,
      created,
      resolve([
        { interface: "scsi0", sizeGiB: 4, discard: true },
        { interface: "scsi1", storage: "local-lvm", sizeGiB: 12, backup: false },
        { interface: "virtio0", sizeGiB: 2 },
      ]),
    );
    expect(configOf(updated)).toMatchObject({
      scsi0: expect.stringMatching(/discard=on/),
      scsi1: expect.stringMatching(/size=12G/),
      // Beside the boot disk, on its storage.
      virtio0: expect.stringMatching(/^shared:vm-\d+-disk-\d+,size=2G$/),
    });
    expect((await readVm(ctx, updated))?.disks).toEqual(updated.disks);
    const dataVolume = String(configOf(updated)["scsi1"]).split(",")[0];

    const detached = await updateVm(
      ctx,
      updated,
      resolve([
        { interface: "scsi0", sizeGiB: 4, discard: true },
        { interface: "scsi1", storage: "local-lvm", sizeGiB: 12, backup: false, remove: true },
        { interface: "virtio0", sizeGiB: 2 },
      ]),
    );
    expect(configOf(detached)["scsi1"]).toBeUndefined();
    // PVE keeps a detached disk's volume, data and all, as an unused entry of the VM.
    expect(configOf(detached)["unused0"]).toBe(dataVolume);
    const reread = await readVm(ctx, detached);
    expect(reread?.disks).toEqual(detached.disks);
  });

  it("hot-plugs a new disk into a running VM, and reboots it for an option of a disk in use", async () => {
    const ctx = await context();
    const boot = { interface: "scsi0", sizeGiB: 2 };
    const created = await createVm(ctx, resolve([boot]));
    const reboots = () =>
      [...(sim?.model.tasks.values() ?? [])].filter((task) => task.type === "qmreboot").length;

    const added = await updateVm(ctx, created, resolve([boot, { interface: "scsi1", sizeGiB: 4 }]));
    expect(configOf(added)["scsi1"]).toMatch(/size=4G/);
    expect(reboots()).toBe(0);

    await updateVm(
      ctx,
      added,
      resolve([
        { ...boot, ssd: true },
        { interface: "scsi1", sizeGiB: 4 },
      ]),
    );
    expect(configOf(added)["scsi0"]).toMatch(/ssd=1/);
    expect(reboots()).toBe(1);

    // PVE hot-plugs SCSI and virtio disks only: a SATA disk waits for the reboot.
    const disks = [
      { ...boot, ssd: true },
      { interface: "scsi1", sizeGiB: 4 },
    ];
    await updateVm(ctx, added, resolve([...disks, { interface: "sata1", sizeGiB: 1 }]));
    expect(configOf(added)["sata1"]).toMatch(/size=1G/);
    expect(reboots()).toBe(2);
  });

  it("moves a disk to another storage on the same VM, deleting the source volume", async () => {
    const ctx = await context();
    const boot = { interface: "scsi0", sizeGiB: 2 };
    const data = { interface: "scsi1", storage: "local-lvm", sizeGiB: 8, cache: "writeback" };
    const created = await createVm(ctx, resolve([boot, data]));
    const volumeOf = () => String(configOf(created)["scsi1"]).split(",")[0];
    const before = volumeOf();

    const moved = await updateVm(ctx, created, resolve([boot, { ...data, storage: "shared" }]));
    expect(moved.vmid).toBe(created.vmid);
    expect(configOf(moved)["scsi1"]).toMatch(/^shared:vm-\d+-disk-\d+,cache=writeback,size=8G$/);
    expect(Object.keys(configOf(moved)).filter((key) => key.startsWith("unused"))).toEqual([]);
    expect(sim?.model.volumes("pve1", "local-lvm").map((v) => v.volid)).not.toContain(before);
    expect((await readVm(ctx, moved))?.disks).toEqual(moved.disks);
  });

  it("reads a disk grown behind the program's back as drift, and refuses to shrink it", async () => {
    const ctx = await context();
    const disks = [{ interface: "scsi0", sizeGiB: 4 }];
    const created = await createVm(ctx, resolve(disks));
    const upid = await ctx.api.resizeDisk("pve1", created.vmid, "scsi0", "6G");
    if (upid) await ctx.waitForTask("pve1", upid, { budgetMs: 10_000, step: "resizing by hand" });

    expect((await readVm(ctx, created))?.disks).toEqual([{ interface: "scsi0", sizeGiB: 6 }]);
    const failed = await updateVm(ctx, created, resolve(disks)).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(VmInitError);
    expect((failed as Error).message).toBe(
      `VM ${created.vmid} on pve1: disk scsi0 is 6 GiB and Proxmox cannot shrink disks; ` +
        "set disks[0].sizeGiB to 6 or more.",
    );
    // Nothing was written; the next update with the size PVE has succeeds.
    expect(configOf(created)["scsi0"]).toMatch(/size=6G/);
    const fixed = await updateVm(ctx, created, resolve([{ interface: "scsi0", sizeGiB: 6 }]));
    expect((await readVm(ctx, fixed))?.disks).toEqual([{ interface: "scsi0", sizeGiB: 6 }]);
  });

  it("fails an added disk on a storage the node lacks, and the next run with a real one adds it", async () => {
    const ctx = await context();
    const created = await createVm(ctx, resolve([{ interface: "scsi0", sizeGiB: 2 }]));
    const boot = { interface: "scsi0", sizeGiB: 2 };
    const wrong = [boot, { interface: "scsi1", storage: "nosuch", sizeGiB: 8 }];
    const failed = await updateVm(ctx, created, resolve(wrong)).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(VmInitError);
    expect((failed as Error).message).toMatch(/storage 'nosuch' does not exist/);
    expect(configOf(created)["scsi1"]).toBeUndefined();

    const kept = (failed as VmInitError).properties as unknown as VmState;
    const fixed = await updateVm(
      ctx,
      kept,
      resolve([boot, { interface: "scsi1", storage: "local-lvm", sizeGiB: 8 }]),
    );
    expect(configOf(fixed)["scsi1"]).toMatch(/^local-lvm:vm-\d+-disk-\d+,size=8G$/);
  });
});
