import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator, type SimulatorOptions } from "../../../../simulator";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import { diffVm } from "../../../../provider/vm/operations/diff";
import { readVm } from "../../../../provider/vm/operations/read";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { updateVm } from "../../../../provider/vm/operations/update";
import { buildContext } from "../../../../provider/pve/connection";
import { LOCAL_TEMPLATE } from "../../../support/local-template";

const base = {
  identity: { project: "int", stack: "test", name: "uefi" },
  node: "pve1",
  template: 9000,
  waitForIp: false,
};

const firmware = {
  bios: "ovmf",
  efiDisk: { storage: "local-lvm" },
  tpm: { storage: "local-lvm" },
  machine: "q35",
  scsihw: "virtio-scsi-single",
  vga: "std",
  serial: "socket",
  boot: ["scsi0", "net0"],
  agent: { fstrimClonedDisks: true },
};

function resolve(extra: Record<string, unknown>): ResolvedInputs {
  const { inputs, failures } = checkVm({}, { ...base, ...extra });
  expect(failures).toEqual([]);
  return inputs as ResolvedInputs;
}

let sim: Simulator;
let ctx: OperationContext;

async function startWith(options: SimulatorOptions = {}): Promise<void> {
  sim = await startSimulator({ guestBootMs: 20, ...options });
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": sim.apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  ctx = buildContext({ get: (key) => config[key] });
}

beforeEach(async () => {
  await startWith();
  vi.spyOn(console, "log").mockImplementation(() => undefined);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await sim.close();
});

describe("converge of the firmware and machine inputs", () => {
  it("creates the EFI and TPM disks and writes the firmware keys on a new VM, which reads back without drift", async () => {
    const inputs = resolve(firmware);
    const created = await createVm(ctx, inputs);
    const config = sim.model.vms.get(created.vmid)?.config ?? {};
    expect(config).toMatchObject({
      bios: "ovmf",
      machine: "q35",
      scsihw: "virtio-scsi-single",
      vga: "std",
      serial0: "socket",
      boot: "order=scsi0;net0",
      agent: "enabled=1,fstrim_cloned_disks=1",
    });
    // PVE allocated the volumes: the config names them, not the `storage:1` request.
    expect(config["efidisk0"]).toMatch(
      /^local-lvm:vm-\d+-disk-\d+,efitype=4m,pre-enrolled-keys=1,/,
    );
    expect(config["tpmstate0"]).toMatch(/^local-lvm:vm-\d+-disk-\d+,size=4M,version=v2\.0$/);
    const volumes = sim.model.volumes("pve1", "local-lvm").filter((v) => v.vmid === created.vmid);
    expect(volumes).toHaveLength(2);

    const read = await readVm(ctx, created);
    expect(read).toMatchObject({
      bios: "ovmf",
      efiDisk: { storage: "local-lvm", preEnrolledKeys: true, type: "4m" },
      tpm: { storage: "local-lvm", version: "v2.0" },
      machine: "q35",
      vga: "std",
      boot: ["scsi0", "net0"],
      agent: { fstrimClonedDisks: true },
    });
    expect(diffVm(read as Record<string, unknown>, inputs).changes).toBe(false);

    await deleteVm(ctx, created);
    expect(sim.model.vms.has(created.vmid)).toBe(false);
    expect(sim.model.volumes("pve1", "local-lvm").filter((v) => v.vmid === created.vmid)).toEqual(
      [],
    );
  });

  it("reboots a running VM to apply a machine change, and with rebootPolicy never leaves it pending", async () => {
    const created = await createVm(ctx, resolve(firmware));
    const vm = () => sim.model.vms.get(created.vmid);
    expect(vm()?.status).toBe("running");

    const never = await updateVm(
      ctx,
      created,
      resolve({ ...firmware, machine: "pc-q35-8.1", rebootPolicy: "never" }),
    );
    expect(vm()?.pending).toMatchObject({ machine: "pc-q35-8.1" });
    expect(vm()?.config["machine"]).toBe("q35");

    const allowed = await updateVm(
      ctx,
      never,
      resolve({ ...firmware, machine: "pc-q35-8.1", vga: "serial0" }),
    );
    expect(vm()?.pending).toEqual({});
    expect(vm()?.config).toMatchObject({ machine: "pc-q35-8.1", vga: "serial0" });
    expect(await readVm(ctx, allowed)).toMatchObject({ machine: "pc-q35-8.1", vga: "serial0" });
    await deleteVm(ctx, allowed);
  });

  it("adds an EFI disk to a VM created without one", async () => {
    const created = await createVm(ctx, resolve({ started: false }));
    expect(sim.model.vms.get(created.vmid)?.config["efidisk0"]).toBeUndefined();
    const updated = await updateVm(
      ctx,
      created,
      resolve({ started: false, bios: "ovmf", efiDisk: { storage: "local-lvm", type: "2m" } }),
    );
    expect(sim.model.vms.get(created.vmid)?.config["efidisk0"]).toMatch(
      /^local-lvm:vm-\d+-disk-\d+,efitype=2m,pre-enrolled-keys=1,/,
    );
    expect((await readVm(ctx, updated))?.efiDisk).toEqual({
      storage: "local-lvm",
      preEnrolledKeys: true,
      type: "2m",
    });
    await deleteVm(ctx, updated);
  });
});

describe("a linked clone", () => {
  it("shares the template's base volume, records its mode in the mark, and is deleted without touching the base", async () => {
    const created = await createVm(ctx, resolve({ clone: { full: false }, node: "pve2" }));
    const config = sim.model.vms.get(created.vmid)?.config ?? {};
    // Linked: the disk is a child of the template's base volume on the same (shared) storage.
    expect(config["scsi0"]).toMatch(/^shared:base-9000-disk-0\/vm-\d+-disk-0,/);
    expect(config["description"]).toContain('"clone":{"full":false}');
    const read = await readVm(ctx, created);
    expect(read?.clone).toEqual({ full: false });
    expect(
      diffVm(read as Record<string, unknown>, resolve({ clone: { full: false }, node: "pve2" }))
        .changes,
    ).toBe(false);
    // A change of mode is a replacement.
    expect(diffVm(read as Record<string, unknown>, resolve({ node: "pve2" })).replaces).toEqual([
      "clone",
    ]);

    await deleteVm(ctx, created);
    expect(sim.model.vms.has(created.vmid)).toBe(false);
    expect(sim.model.volumes("pve1", "shared").map((v) => v.volid)).toContain(
      "shared:base-9000-disk-0",
    );
  });

  it("is refused before any request when it asks for a disk storage", () => {
    sim.clearRequestLog();
    const { failures } = checkVm({}, { ...base, clone: { full: false }, storage: "local-lvm" });
    expect(failures.map((f) => f.property)).toEqual(["clone"]);
    expect(sim.requestLog).toEqual([]);
  });
});

describe("a linked clone of a template on node-local storage", () => {
  it("is refused for another node before any clone, naming what to set, and made on the template's node", async () => {
    await sim.close();
    await startWith({ templates: [LOCAL_TEMPLATE] });
    const linked = { template: 9100, clone: { full: false } };

    const refused = await createVm(ctx, resolve({ ...linked, node: "pve2" })).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      code: "INVALID_PARAM",
      message: expect.stringMatching(
        /^clone: a linked clone shares the drives of template 9100, which are on node-local storage \(local-lvm\) of node pve1.*Set node to pve1, or clone: \{ full: true \}/,
      ),
    });
    // Refused before the clone: PVE was never asked.
    expect(sim.requestLog.filter((r) => r.path.endsWith("/clone"))).toEqual([]);
    expect([...sim.model.vms.keys()]).toEqual([9100]);

    const created = await createVm(ctx, resolve({ ...linked, node: "pve1" }));
    expect(sim.model.vms.get(created.vmid)?.config["scsi0"]).toMatch(
      /^local-lvm:base-9100-disk-0\/vm-\d+-disk-0,/,
    );
    await deleteVm(ctx, created);
    expect([...sim.model.vms.keys()]).toEqual([9100]);
  });
});
