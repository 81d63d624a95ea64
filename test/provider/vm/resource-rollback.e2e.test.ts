import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { exportedResources, pulumi } from "../../e2e/support/engine";
import { expectFailure } from "../../support/command-result";
import { useStack } from "../../e2e/support/use-stack";

/** A VM on lvmthin (which PVE snapshots), and optionally one on the template's NFS storage. */
const program = (safe: Record<string, unknown>, onNfs?: Record<string, unknown>) => `
const { ProxmoxVm } = require("pulumi-proxmox");
const safe = new ProxmoxVm("safe", ${JSON.stringify({
  node: "pve1",
  template: 9000,
  storage: "local-lvm",
  memory: 512,
  ...safe,
})});
exports.safe = safe.vmid;
${
  onNfs === undefined
    ? ""
    : `const nfs = new ProxmoxVm("nfs", ${JSON.stringify({ node: "pve1", template: 9000, memory: 512, ...onNfs })});
exports.nfs = nfs.vmid;`
}
`;

const BEFORE = { cores: 1, diskSize: 4, rollbackOnFailure: true };
/** The template's own storage is NFS with raw volumes, which PVE cannot snapshot. */
const NFS = { cores: 1 };
const AFTER = { cores: 2, diskSize: 6, rollbackOnFailure: true };

describe("ProxmoxVm rollbackOnFailure through the real engine", () => {
  const { sim, engine, dir, up } = useStack(
    { name: "rollback", program: program(BEFORE, NFS) },
    { destroyAfter: true },
  );
  const write = (...args: Parameters<typeof program>) =>
    fs.writeFileSync(path.join(dir, "index.js"), program(...args));
  const outputs = async () =>
    JSON.parse((await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout) as {
      safe: number;
      nfs?: number;
    };
  const vm = (vmid: number) => {
    const record = sim.model.vms.get(vmid);
    if (record === undefined) throw new Error(`no VM ${vmid}`);
    return record;
  };
  const snapshots = (vmid: number) => Object.keys(vm(vmid).snapshots ?? {}).sort();
  const stored = async (vmid: number) =>
    (await exportedResources(dir, engine.env)).find((r) => r.id === String(vmid))?.outputs;

  it("rolls back a cores change and a disk grow whose reboot fails, then applies them", async () => {
    await up();
    const { safe } = await outputs();
    expect(vm(safe).status).toBe("running");

    write(AFTER, NFS);
    sim.faults.failTasks({ type: "qmreboot", id: String(safe) }, "guest did not come back");
    const failed = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectFailure(failed);
    const said = failed.stdout + failed.stderr;
    expect(said).toMatch(/guest did not come back; rolled back to the state before this update/);
    expect(said).toMatch(/snapshot taken \(pp-update-[0-9a-f]{8}-[0-9a-z]+\)/);
    expect(said).toMatch(/rolling back \(/);
    expect(said).toMatch(/rolled back in \d+ s/);
    expect(vm(safe).config).toMatchObject({ cores: 1, scsi0: expect.stringMatching(/size=4G/) });
    expect(vm(safe).status).toBe("running");
    expect(snapshots(safe)).toEqual([]);
    expect(await stored(safe)).toMatchObject({ cores: 1, diskSize: 4 });

    sim.faults.clear();
    const applied = await up();
    expect(applied.stdout).toMatch(/snapshot taken/);
    expect(vm(safe).config).toMatchObject({ cores: 2, scsi0: expect.stringMatching(/size=6G/) });
    expect(vm(safe).status).toBe("running");
    expect(snapshots(safe)).toEqual([]);
  });

  it("keeps the last two snapshots of successful updates with keep: 2", async () => {
    const { safe } = await outputs();
    for (const cores of [3, 4, 1]) {
      write({ ...AFTER, cores, rollbackOnFailure: { keep: 2 } }, NFS);
      await up();
    }
    const kept = snapshots(safe);
    expect(kept).toHaveLength(2);
    expect(kept.every((name) => name.startsWith("pp-update-"))).toBe(true);
    expect(vm(safe).config["cores"]).toBe(1);
  });

  it("refuses at preview a VM whose disk PVE cannot snapshot, and writes nothing", async () => {
    const { nfs } = await outputs();
    if (nfs === undefined) throw new Error("no VM on NFS");
    const before = { ...vm(nfs).config };
    const kept = { ...AFTER, cores: 1, rollbackOnFailure: { keep: 2 } };

    write(kept, { cores: 2, rollbackOnFailure: true });
    const preview = await pulumi(["preview"], dir, engine.env);
    expectFailure(preview);
    const said = preview.stdout + preview.stderr;
    expect(said).toContain("rollbackOnFailure");
    expect(said).toMatch(
      new RegExp(`disk scsi0 of VM ${nfs} on pve1 is a raw volume on storage shared \\(nfs\\)`),
    );
    expectFailure(await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env));
    expect(vm(nfs).config).toEqual(before);
    expect(snapshots(nfs)).toEqual([]);
  });
});
