import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SweepReport } from "../../cli";
import { HttpProxmoxApi } from "../../provider/pve/api/http-api";
import { waitForTask } from "../../provider/pve/tasks/task-wait";
import { parseConnectionConfig } from "../../provider/pve/config";
import { buildVmSeed } from "../../provider/vm/steps/vm-seed";
import { exportedResources, pulumi } from "../e2e/support/engine";
import { guestVms, seedIsos } from "../e2e/support/proxmox-stack";
import { readJson, runBin } from "./support";
import { expectExitCode, expectSuccess } from "../support/command-result";
import { useStack } from "../e2e/support/use-stack";
import { VM_TYPE } from "../../provider/entry";

const program = `
const { ProxmoxVm } = require("pulumi-proxmox");
new ProxmoxVm("keep", { node: "pve1", template: 9000 });
new ProxmoxVm("lost", { node: "pve1", template: 9000 });
`;

describe("sweep through the installed bin", () => {
  const { sim, engine, dir, up } = useStack({ name: "cli-sweep", program });
  let env: NodeJS.ProcessEnv;
  const vms: Record<string, { vmid: number; seed: string; name: string }> = {};
  let ghostSeed: string;
  const UNMARKED = 500;

  beforeAll(async () => {
    env = {
      ...engine.env,
      PROXMOX_VE_ENDPOINT: sim.url,
      PROXMOX_VE_API_TOKEN: sim.apiToken,
      PROXMOX_VE_CA_CERT: sim.caCertPem,
    };
    await up();
    for (const r of await exportedResources(dir, engine.env)) {
      if (r.type !== VM_TYPE || !r.outputs) continue;
      const name = String(r.outputs["vmName"]).startsWith("keep") ? "keep" : "lost";
      vms[name] = {
        vmid: r.outputs["vmid"] as number,
        seed: r.outputs["seedVolid"] as string,
        name: r.outputs["vmName"] as string,
      };
    }
    // A lost state: the engine forgets "lost", Proxmox keeps it.
    const urn = `urn:pulumi:dev::cli-sweep::${VM_TYPE}::lost`;
    const del = await pulumi(["state", "delete", urn, "--yes"], dir, engine.env);
    if (del.code !== 0) throw new Error(del.stdout + del.stderr);

    const api = new HttpProxmoxApi({
      connection: parseConnectionConfig(
        { endpoint: sim.url, apiToken: sim.apiToken, caCert: sim.caCertPem },
        { env: {} },
      ),
    });
    // A VM someone made by hand (no mark), and a seed whose VM is long gone.
    const clone = await api.cloneVm({
      node: "pve1",
      vmid: 9000,
      newid: UNMARKED,
      name: "by-hand",
      full: true,
    });
    await waitForTask(api, "pve1", clone, { budgetMs: 30_000 });
    const seed = buildVmSeed({
      identity: "0123456789abcdef",
      vmName: "ghost",
      macs: [],
      nics: { nics: [{ bridge: "vmbr0", model: "virtio", ipv4: "dhcp" }] },
      cloudInit: {},
    });
    const upload = await api.uploadIso("pve1", "local", seed);
    await waitForTask(api, "pve1", upload, { budgetMs: 30_000 });
    ghostSeed = `local:iso/${seed.filename}`;
  });
  afterAll(async () => {
    engine.cleanup();
    await sim.close();
  });

  it("lists exactly the orphans of the lost state in a dry run, deleting nothing", async () => {
    const file = path.join(dir, "dry.json");
    // The stack's proxmox:* config connects it: no PROXMOX_VE_* needed.
    const sweep = await runBin(["sweep", "--stack", "dev", "--report", file], dir, engine.env);
    expectSuccess(sweep);
    const lost = vms["lost"];
    expect(sweep.stdout).toMatch(
      new RegExp(`orphan\\s+seed\\s+${ghostSeed.replace(/[.]/g, "\\.")}\\s+on local of node pve1`),
    );
    expect(sweep.stdout).toMatch(
      new RegExp(
        `orphan\\s+vm\\s+VM ${lost?.vmid} on pve1 \\(${lost?.name}\\)\\s+mark phase complete`,
      ),
    );
    expect(sweep.stdout).toContain("Dry run: nothing was deleted.");
    const report = readJson<SweepReport>(file);
    expect(report.applied).toBe(false);
    expect(report.ownedVms).toBe(1);
    expect(report.items.map((i) => [i.kind, i.target, i.action])).toEqual([
      ["vm", `VM ${lost?.vmid} on pve1 (${lost?.name})`, "orphan"],
      ...[[lost?.seed ?? ""], [ghostSeed]]
        .sort(([a], [b]) => (a ?? "").localeCompare(b ?? ""))
        .map(([volid]) => ["seed", volid, "orphan"]),
    ]);
    expect(guestVms(sim).sort()).toEqual([vms["keep"]?.vmid, vms["lost"]?.vmid, UNMARKED].sort());
    expect(seedIsos(sim)).toHaveLength(3);
  });

  it("refuses to run without a stack or a state file", async () => {
    const sweep = await runBin(["sweep", "--apply"], dir, env);
    expectExitCode(sweep, 1);
    expect(sweep.stderr).toContain("sweep needs at least one --stack or --state-file");
    expect(guestVms(sim)).toHaveLength(3);
  });

  it("deletes the orphans with --apply and leaves owned and unmarked VMs alone", async () => {
    const file = path.join(dir, "apply.json");
    const sweep = await runBin(
      ["sweep", "--cwd", dir, "--stack", "dev", "--apply", "--report", file],
      dir,
      env,
    );
    expectSuccess(sweep);
    const report = readJson<SweepReport>(file);
    expect(report.applied).toBe(true);
    expect(report.items.map((i) => [i.kind, i.action])).toEqual([
      ["vm", "deleted"],
      ["seed", "deleted"],
      ["seed", "deleted"],
    ]);
    expect(guestVms(sim).sort()).toEqual([vms["keep"]?.vmid, UNMARKED].sort());
    expect(seedIsos(sim)).toEqual([vms["keep"]?.seed]);

    const again = await runBin(["sweep", "--stack", "dev"], dir, env);
    expectSuccess(again);
    expect(again.stdout).toContain("No orphans.");
  });

  it("leaves the stack whole: destroy removes its VM and nothing else", async () => {
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([UNMARKED]);
    expect(seedIsos(sim)).toEqual([]);
  });
});
