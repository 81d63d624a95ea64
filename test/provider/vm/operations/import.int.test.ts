import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { importVm, importVms } from "../../../../provider/vm/operations/import";
import { readVm } from "../../../../provider/vm/operations/read";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import type { VmState } from "../../../../provider/vm/state/vm-state";
import { simulatorContext } from "../../../support/test-context";
import { TestClient } from "../../../simulator/support/client";

const OWN_TEXT = "Legacy web server\nowned by the ops team";

describe("import (over HTTP)", () => {
  let sim: Simulator;
  let ctx: OperationContext;
  let api: TestClient;

  beforeAll(async () => {
    sim = await startSimulator({ listingLagMs: 0 });
    ctx = simulatorContext(sim);
    api = new TestClient(sim);
    const pool = await api.call("POST", "/pools", { poolid: "legacy" });
    expect(pool.status, pool.text).toBe(200);
  });
  afterAll(async () => {
    await api.close();
    await sim.close();
  });
  beforeEach(() => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    return () => vi.restoreAllMocks();
  });

  /** A VM made the way an admin makes one: created, then put in a pool (PVE's update_pool). */
  async function vm(vmid: number, params: Record<string, string | number>, pool?: string) {
    const res = await api.call("POST", "/nodes/pve1/qemu", {
      vmid,
      name: `legacy-${vmid}`,
      ...params,
    });
    expect(res.status, res.text).toBe(200);
    await api.waitTask("pve1", (res.body as { data: string }).data);
    if (pool !== undefined) {
      const join = await api.call("PUT", `/pools/${pool}`, { vms: vmid });
      expect(join.status, join.text).toBe(200);
    }
    return api.vmConfig("pve1", vmid);
  }
  const writes = () =>
    sim.requestLog.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

  it("declares what a hand-made VM has, and adopting the declaration writes only the mark", async () => {
    const before = await vm(
      6001,
      {
        cores: 2,
        sockets: 2,
        cpu: "host",
        memory: 3072,
        scsi0: "local-lvm:4,discard=on",
        scsi1: "local-lvm:2",
        net0: "virtio,bridge=vmbr0",
        net1: "e1000,bridge=vmbr0,firewall=1,tag=20",
        ide2: "local-lvm:cloudinit",
        onboot: 1,
        tags: "web;prod",
        description: OWN_TEXT,
      },
      "legacy",
    );
    const imported = await importVm(ctx, 6001);
    expect(imported).toMatchObject({ vmid: 6001, node: "pve1", name: "legacy-6001" });
    expect(imported.inputs).toEqual({
      boot: ["ide2", "scsi0", "scsi1", "net0", "net1"],
      cpu: { type: "host", sockets: 2, cores: 2 },
      memory: 3072,
      disks: [
        { interface: "scsi0", storage: "local-lvm", sizeGiB: 4, discard: true },
        { interface: "scsi1", storage: "local-lvm", sizeGiB: 2 },
      ],
      networks: [
        { model: "virtio", bridge: "vmbr0" },
        { model: "e1000", bridge: "vmbr0", vlan: 20, firewall: true },
      ],
      started: false,
      tags: ["prod", "web"],
      description: OWN_TEXT,
      onBoot: true,
      pool: "legacy",
    });
    expect(imported.notes.join("\n")).toMatch(/Kept as they are, as no input says them: ide2\./);

    sim.clearRequestLog();
    const inputs = checkVm(
      {},
      {
        identity: { project: "int", stack: "import", name: "legacy" },
        node: imported.node,
        adopt: { vmid: imported.vmid },
        ...imported.inputs,
      },
    );
    expect(inputs.failures).toEqual([]);
    const state = (await createVm(ctx, inputs.inputs as ResolvedInputs)) as VmState;
    expect(writes()).toEqual(["POST /nodes/pve1/qemu/6001/config"]);
    const after = await api.vmConfig("pve1", 6001);
    const changed = Object.keys({ ...before, ...after }).filter(
      (key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]) && key !== "digest",
    );
    expect(changed).toEqual(["description"]);

    // Refresh reads back what the declaration says: no drift.
    const read = await readVm(ctx, state);
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value ?? null)) as unknown;
    for (const key of Object.keys(imported.inputs)) {
      expect(plain(read?.[key as keyof VmState]), key).toEqual(plain(inputs.inputs[key]));
    }
  });

  it("leaves out what adopting would write, and says so", async () => {
    // No cores key: PVE's default of 1 core is not an input value to write.
    await vm(6002, { memory: 512, agent: "0" });
    const imported = await importVm(ctx, 6002);
    expect(imported.inputs).toEqual({ memory: 512, started: false });
    expect(imported.notes.join("\n")).toMatch(
      /agent: left out, so the VM keeps agent=0: the input would write agent=1\./,
    );
  });

  it("refuses a missing VMID, a template and a marked VM, and writes nothing", async () => {
    const mark = `pulumi-proxmox:${JSON.stringify({ v: 1, id: "0123456789abcdef", phase: "complete", node: "pve1", template: 9000, isoStorage: "local", adoptedBy: { project: "ops", stack: "prod", name: "web" } })}`;
    await vm(6003, { memory: 512, description: `theirs\n\n${mark}` });
    sim.clearRequestLog();
    await expect(importVm(ctx, 6999)).rejects.toThrow(/VM 6999 does not exist in the cluster/);
    await expect(importVm(ctx, 9000)).rejects.toThrow(
      /VM 9000 on pve1 is a template: import declares VMs \(a ProxmoxVm clones it with `template: 9000`\)/,
    );
    await expect(importVm(ctx, 6003)).rejects.toThrow(
      /VM 6003 on pve1 is managed by resource web of stack ops\/prod/,
    );
    expect(writes()).toEqual([]);
  });

  it("declares each VM with a tag, and names the tagged ones it passes over", async () => {
    await vm(6004, { memory: 512, tags: "db" });
    const db = await importVms(ctx, { tag: "DB" });
    expect(db.vms.map((v) => v.vmid)).toEqual([6004]);
    expect(db.skipped).toEqual([]);
    // 6001 was adopted above: it carries a mark now.
    const web = await importVms(ctx, { tag: "web" });
    expect(web.vms).toEqual([]);
    expect(web.skipped.map((v) => v.vmid)).toEqual([6001]);
    expect(web.skipped[0]?.why).toMatch(/is managed by resource legacy of stack int\/import/);

    const all = await importVms(ctx, { node: "pve1" });
    expect(all.vms.map((v) => v.vmid)).toEqual([6002, 6004]);
    expect(all.skipped.map((v) => [v.vmid, v.why])).toEqual([
      [6001, expect.stringMatching(/managed by resource legacy/)],
      [6003, expect.stringMatching(/managed by resource web/)],
      [9000, expect.stringMatching(/is a template/)],
    ]);
  });
});
