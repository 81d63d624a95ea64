import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TEMPLATES } from "../../../simulator/model/defaults";
import { pulumi } from "../../e2e/support/engine";
import { guestVms, seedIsos } from "../../e2e/support/proxmox-stack";
import { LOCAL_TEMPLATE } from "../../support/local-template";
import { expectSuccess } from "../../support/command-result";
import { useStack } from "../../e2e/support/use-stack";

interface Settings {
  readonly machine: string;
  readonly vga: string;
  readonly linkedFull: boolean;
}

const program = (s: Settings) => `
const { ProxmoxVm } = require("pulumi-proxmox");
const uefi = new ProxmoxVm("uefi", {
  node: "pve2", template: 9100, waitForIp: false,
  bios: "ovmf", efiDisk: { storage: "local-lvm" }, tpm: { storage: "local-lvm" },
  machine: ${JSON.stringify(s.machine)}, scsihw: "virtio-scsi-single", vga: ${JSON.stringify(s.vga)},
  serial: "socket", boot: ["scsi0", "net0"], agent: { fstrimClonedDisks: true },
});
const linked = new ProxmoxVm("linked", {
  node: "pve2", template: 9000, waitForIp: false, clone: { full: ${s.linkedFull} },
});
exports.uefi = uefi.vmid;
exports.linked = linked.vmid;
`;

describe("ProxmoxVm firmware, machine and clone mode through the real engine", () => {
  const { sim, engine, dir, up } = useStack(
    { name: "firmware", program: program({ machine: "q35", vga: "std", linkedFull: false }) },
    {
      simulator: { guestBootMs: 20, templates: [...DEFAULT_TEMPLATES, LOCAL_TEMPLATE] },
      destroyAfter: true,
    },
  );
  const write = (s: Settings) => fs.writeFileSync(path.join(dir, "index.js"), program(s));
  const outputs = async () =>
    JSON.parse((await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout) as {
      uefi: number;
      linked: number;
    };
  const driftCheck = () =>
    pulumi(["preview", "--refresh", "--expect-no-changes", "--diff"], dir, engine.env);
  const vmVolumes = () =>
    sim.model.storages
      .flatMap((s) => ["pve1", "pve2"].flatMap((node) => sim.model.volumes(node, s.storage)))
      .filter((v) => ![9000, 9001, 9100].includes(v.vmid ?? 0) && v.content === "images");

  beforeAll(() => up());

  it("creates an OVMF VM from another node's local template, and a linked clone on the template's base", async () => {
    const { uefi, linked } = await outputs();
    expect(sim.model.vms.get(uefi)?.node).toBe("pve2");
    expect(sim.model.volumes("pve2", "local-lvm").filter((v) => v.vmid === uefi)).toHaveLength(3);
    expect(sim.model.vms.get(uefi)?.config).toMatchObject({
      bios: "ovmf",
      machine: "q35",
      efidisk0: expect.stringMatching(/^local-lvm:vm-\d+-disk-\d+,efitype=4m,pre-enrolled-keys=1/),
      tpmstate0: expect.stringMatching(/^local-lvm:vm-\d+-disk-\d+,(size=[^,]+,)?version=v2\.0/),
    });
    expect(sim.model.vms.get(linked)?.config["scsi0"]).toMatch(/^shared:base-9000-disk-0\//);
  });

  it("settles: refresh and preview show zero changes three times in a row", async () => {
    for (let i = 0; i < 3; i++) {
      const drift = await driftCheck();
      expectSuccess(drift);
    }
  });

  it("changes the machine type and display in place, rebooting the running VM", async () => {
    const before = await outputs();
    write({ machine: "pc-q35-8.1", vga: "serial0", linkedFull: false });
    const preview = await pulumi(["preview", "--diff"], dir, engine.env);
    expect(preview.stdout).toMatch(/~ machine\s*: "q35" => "pc-q35-8.1"/);
    const result = await up();
    expect(result.stdout + result.stderr).toMatch(/rebooting to apply machine, vga/);
    expect((await outputs()).uefi).toBe(before.uefi);
    const vm = sim.model.vms.get(before.uefi);
    expect(vm?.config).toMatchObject({ machine: "pc-q35-8.1", vga: "serial0" });
    expect(vm?.pending).toEqual({});
    const drift = await driftCheck();
    expectSuccess(drift);
  });

  it("replaces the linked clone with a full one when the clone mode changes", async () => {
    const before = await outputs();
    write({ machine: "pc-q35-8.1", vga: "serial0", linkedFull: true });
    const preview = await pulumi(["preview", "--diff"], dir, engine.env);
    expect(preview.stdout).toMatch(/\+-\s*pulumi-nodejs:dynamic\/proxmox:ProxmoxVm: \(replace\)/);
    await up();
    const after = await outputs();
    expect(after.uefi).toBe(before.uefi);
    expect(after.linked).not.toBe(before.linked);
    expect(sim.model.vms.has(before.linked)).toBe(false);
    expect(sim.model.vms.get(after.linked)?.config["scsi0"]).toMatch(/^shared:vm-\d+-disk-0,/);
  });

  it("destroys everything: no VM, no disk, no seed left", async () => {
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(vmVolumes()).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });
});
