import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../simulator";
import { engineEnv, pulumi, type EngineEnv } from "../../e2e/support/engine";
import { guestVms, proxmoxStack } from "../../e2e/support/proxmox-stack";
import { TestClient } from "../../simulator/support/client";

const LEGACY = 4321;
const OWN_TEXT = "Legacy web server\nowned by the ops team";

/** A VM made the way an admin makes one, through the API: two disks, two NICs, its own text. */
async function legacyVm(sim: Simulator, vmid = LEGACY, extra: Record<string, string> = {}) {
  const api = new TestClient(sim);
  try {
    const res = await api.call("POST", "/nodes/pve1/qemu", {
      vmid,
      name: `legacy-${vmid}`,
      cores: 2,
      memory: 1024,
      scsi0: "local-lvm:4",
      scsi1: "local-lvm:2",
      net0: "virtio,bridge=vmbr0",
      net1: "e1000,bridge=vmbr0,firewall=1",
      ide2: "local-lvm:cloudinit",
      description: OWN_TEXT,
      ...extra,
    });
    expect(res.status, res.text).toBe(200);
    await api.waitTask("pve1", (res.body as { data: string }).data);
    return await api.vmConfig("pve1", vmid);
  } finally {
    await api.close();
  }
}

const program = (args: string, name = "legacy", opts = "{}") => `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm(${JSON.stringify(name)}, ${args}, ${opts});
exports.vmid = vm.vmid;
`;

/** The requests that change something: anything but a GET. */
const writes = (sim: Simulator) =>
  sim.requestLog.filter((e) => e.method !== "GET").map((e) => `${e.method} ${e.path}`);

async function configNow(sim: Simulator, vmid = LEGACY) {
  const api = new TestClient(sim);
  try {
    return await api.vmConfig("pve1", vmid);
  } finally {
    await api.close();
  }
}

describe("ProxmoxVm adopt: { vmid }, through the real engine", () => {
  let sim: Simulator;
  let engine: EngineEnv;
  beforeEach(async () => {
    engine = engineEnv();
    sim = await startSimulator();
  });
  afterEach(async () => {
    engine.cleanup();
    await sim.close();
  });

  it("previews only cores, writes only cores and the mark, keeps the rest, and destroys it", async () => {
    const before = await legacyVm(sim);
    const dir = await proxmoxStack(
      "adopt",
      program(`{ node: "pve1", adopt: { vmid: ${LEGACY} }, cores: 4 }`),
      sim,
      engine,
    );
    sim.clearRequestLog();

    const preview = await pulumi(["preview"], dir, engine.env);
    expect(preview.code, preview.stdout + preview.stderr).toBe(0);
    const plan = preview.stdout.split("\n").find((line) => line.includes("adopting"));
    expect(plan).toMatch(/cores: "?2"? → 4/);
    expect(plan).not.toMatch(/memory|net0|net1|scsi|ide2|agent/);
    expect(writes(sim)).toEqual([]);

    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(guestVms(sim)).toEqual([LEGACY]);
    // One config write (PVE's asynchronous POST): the program's cores and the mark, together.
    expect(writes(sim)).toEqual([`POST /nodes/pve1/qemu/${LEGACY}/config`]);
    const after = await configNow(sim);
    const changed = Object.keys({ ...before, ...after }).filter(
      (key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]) && key !== "digest",
    );
    expect(changed.sort()).toEqual(["cores", "description"]);
    expect(Number(after["cores"])).toBe(4);
    expect(String(after["description"])).toMatch(
      /^Legacy web server\nowned by the ops team\n\npulumi-proxmox:\{/,
    );

    const clean = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    // The refresh reads back what up stored: no output appears or changes (e.g. the agent).
    expect(clean.stdout).not.toContain("[diff:");

    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);
    expect(guestVms(sim)).toEqual([]);
  });

  it("leaves the adopted VM in place on destroy with retainOnDelete", async () => {
    await legacyVm(sim);
    const dir = await proxmoxStack(
      "adopt-retain",
      program(
        `{ node: "pve1", adopt: { vmid: ${LEGACY} }, cores: 2 }`,
        "legacy",
        "{ retainOnDelete: true }",
      ),
      sim,
      engine,
    );
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);
    expect(guestVms(sim)).toEqual([LEGACY]);
  });

  it("refuses each adoption it cannot make, in preview and up, with no write", async () => {
    await legacyVm(sim);
    const foreign = `pulumi-proxmox:${JSON.stringify({ v: 1, id: "0123456789abcdef", phase: "complete", node: "pve1", template: 9000, isoStorage: "local" })}`;
    await legacyVm(sim, 4322, { description: `theirs\n\n${foreign}` });
    const cases: [string, string, RegExp][] = [
      [
        "missing",
        program(`{ node: "pve1", adopt: { vmid: 4999 }, cores: 2 }`),
        /VM 4999 does not exist/,
      ],
      [
        "template",
        program(`{ node: "pve1", adopt: { vmid: 9000 }, cores: 2 }`),
        /VM 9000 on node pve1 is a template/,
      ],
      [
        "node",
        program(`{ node: "pve2", adopt: { vmid: ${LEGACY} }, cores: 2 }`),
        /VM 4321 is on node pve1, but the program's node is pve2/,
      ],
      [
        "marked",
        program(`{ node: "pve1", adopt: { vmid: 4322 }, cores: 2 }`),
        /VM 4322 on node pve1 carries the mark of a VM another pulumi-proxmox resource or stack manages/,
      ],
      [
        "twice",
        `${program(`{ node: "pve1", adopt: { vmid: ${LEGACY} }, cores: 2 }`, "a")}\nnew ProxmoxVm("b", { node: "pve1", adopt: { vmid: ${LEGACY} }, cores: 3 });`,
        /VM 4321 is adopted by another ProxmoxVm of this stack \((a|b)\)/,
      ],
    ];
    const dir = await proxmoxStack("adopt-refused", cases[0]?.[1] ?? "", sim, engine);
    for (const [label, source, message] of cases) {
      fs.writeFileSync(path.join(dir, "index.js"), source);
      sim.clearRequestLog();
      const preview = await pulumi(["preview"], dir, engine.env);
      expect(preview.code, label).not.toBe(0);
      expect(preview.stdout + preview.stderr, label).toMatch(message);
      const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
      expect(up.code, label).not.toBe(0);
      expect(up.stdout + up.stderr, label).toMatch(message);
      // Of two resources that name one VM, the first one checked may adopt it; the other writes nothing.
      const allowed = label === "twice" ? [`POST /nodes/pve1/qemu/${LEGACY}/config`] : [];
      expect(allowed, label).toEqual(expect.arrayContaining(writes(sim)));
    }
    expect(guestVms(sim).sort()).toEqual([LEGACY, 4322]);
  });
});
