import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { pulumi } from "../../e2e/support/engine";
import { guestVms, seedIsos } from "../../e2e/support/proxmox-stack";
import { expectFailure, expectSuccess } from "../../support/command-result";
import { useStack } from "../../e2e/support/use-stack";

const program = (disks: readonly Record<string, unknown>[]) => `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("db", {
  node: "pve1", template: 9000, memory: 1024,
  disks: ${JSON.stringify(disks)},
});
exports.vmid = vm.vmid;
`;

const boot = { interface: "scsi0", sizeGiB: 4, discard: true };
const data = { interface: "scsi1", storage: "local-lvm", sizeGiB: 8, backup: false };

describe("ProxmoxVm disks through the real engine", () => {
  const { sim, engine, dir, up } = useStack(
    { name: "disks", program: program([boot, data]) },
    { simulator: { listingLagMs: 300 }, destroyAfter: true },
  );
  const write = (disks: Parameters<typeof program>[0]) =>
    fs.writeFileSync(path.join(dir, "index.js"), program(disks));
  const vmid = async () =>
    (
      JSON.parse((await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout) as {
        vmid: number;
      }
    ).vmid;
  const config = async () => sim.model.vms.get(await vmid())?.config ?? {};
  const settles = async () => {
    const drift = await pulumi(
      ["preview", "--refresh", "--expect-no-changes", "--diff"],
      dir,
      engine.env,
    );
    expectSuccess(drift);
  };
  const vmVolumes = (id: number) =>
    ["local-lvm", "shared"].flatMap((storage) =>
      sim.model.volumes("pve1", storage).filter((volume) => volume.vmid === id),
    );

  it("creates the boot disk grown and a data disk on its storage, then shows no changes", async () => {
    await up();
    expect(await config()).toMatchObject({
      scsi0: expect.stringMatching(/^shared:vm-\d+-disk-0,.*size=4G/),
      scsi1: expect.stringMatching(/^local-lvm:vm-\d+-disk-\d+,backup=0,size=8G$/),
    });
    await settles();
  });

  it("grows a disk and adds one in place, on the same VMID, and settles", async () => {
    const before = await vmid();
    write([boot, { ...data, sizeGiB: 12 }, { interface: "virtio0", sizeGiB: 2 }]);
    const preview = await pulumi(["preview", "--diff"], dir, engine.env);
    expect(preview.stdout).toMatch(/~ pulumi-nodejs:dynamic\/proxmox:ProxmoxVm: \(update\)/);
    expect(preview.stdout).toMatch(/sizeGiB\s*: 8 => 12/);
    await up();
    expect(await vmid()).toBe(before);
    expect(await config()).toMatchObject({
      scsi1: expect.stringMatching(/size=12G/),
      virtio0: expect.stringMatching(/^shared:vm-\d+-disk-\d+,size=2G$/),
    });
    await settles();
  });

  it("refuses a shrink in preview, naming the entry and both sizes, and changes nothing", async () => {
    write([boot, { ...data, sizeGiB: 6 }, { interface: "virtio0", sizeGiB: 2 }]);
    const preview = await pulumi(["preview"], dir, engine.env);
    expectFailure(preview);
    expect(preview.stdout + preview.stderr).toContain(
      "scsi1 was 12 GiB, so disks[1].sizeGiB must be 12 or more",
    );
    expect((await config())["scsi1"]).toMatch(/size=12G/);
  });

  it("detaches a disk marked remove, and destroy leaves no VM, volume or seed", async () => {
    write([boot, { ...data, sizeGiB: 12 }, { interface: "virtio0", sizeGiB: 2, remove: true }]);
    await up();
    const id = await vmid();
    expect((await config())["virtio0"]).toBeUndefined();
    await settles();

    const destroyed = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroyed);
    expect(guestVms(sim)).toEqual([]);
    expect(vmVolumes(id)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });
});
