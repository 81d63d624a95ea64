import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../simulator";
import { readJson, runBin } from "../../cli/support";
import { engineEnv, exportedResources, pulumi, type EngineEnv } from "../../e2e/support/engine";
import { guestVms, proxmoxStack } from "../../e2e/support/proxmox-stack";
import { expectSuccess } from "../../support/command-result";

/** Every ticket the simulator issues to root@pam starts so; none may show anywhere. */
const TICKET_PREFIX = "PVE:root@pam:";
/** Shorter than each run below, whose slow tasks outlast it: every run sees its ticket expire. */
const TICKET_LIFETIME_MS = 2_000;
const SLOW_TASK_MS = 3_500;

const program = (cores: number) => `
const { ProxmoxVm } = require("pulumi-proxmox");
const web = new ProxmoxVm("web", { node: "pve1", template: 9000, cores: ${cores}, memory: 1024 });
exports.vmid = web.vmid;
`;

describe("a password login through the real engine, its tickets expiring mid-run", () => {
  let sim: Simulator;
  let engine: EngineEnv;
  let dir: string;
  let password: string;
  /** Everything the runs printed, checked for the password and tickets at the end. */
  let printed = "";

  beforeAll(async () => {
    sim = await startSimulator({
      ticketLifetimeMs: TICKET_LIFETIME_MS,
      taskDurationsMs: { qmclone: SLOW_TASK_MS, qmreboot: SLOW_TASK_MS, qmdestroy: SLOW_TASK_MS },
    });
    password = sim.rootPassword;
    engine = engineEnv({ PULUMI_PROXMOX_DEBUG: "1" });
    dir = await proxmoxStack("password-login", program(1), sim, engine, {
      username: "root@pam",
      password,
    });
  });
  afterAll(async () => {
    engine.cleanup();
    await sim.close();
  });

  /** Runs `args`, and asserts it logged in again after PVE refused an expired ticket. */
  async function runRenewing(args: string[]) {
    sim.clearRequestLog();
    const result = await pulumi(args, dir, engine.env);
    printed += result.stdout + result.stderr;
    expectSuccess(result);
    const log = sim.requestLog.map((e) => `${e.method} ${e.path} ${e.status}`);
    const refused = log.findIndex((line) => line.endsWith(" 401"));
    expect(refused, log.join("\n")).toBeGreaterThan(0);
    expect(log.slice(refused)).toContain("POST /access/ticket 200");
    // Every request went with a ticket: none with a token.
    expect(sim.requestLog.filter((e) => e.tokenId !== undefined)).toEqual([]);
    return result;
  }

  it("creates the VM", async () => {
    await runRenewing(["up", "--yes", "--skip-preview"]);
    expect(guestVms(sim)).toHaveLength(1);
  });

  it("updates it", async () => {
    fs.writeFileSync(path.join(dir, "index.js"), program(2));
    await runRenewing(["up", "--yes", "--skip-preview"]);
    const vmid = guestVms(sim)[0] ?? 0;
    expect(sim.model.vms.get(vmid)?.config["cores"]).toBe(2);
  });

  it("keeps the password and the tickets out of the state, the provider and the drift report", async () => {
    const exported = await pulumi(["stack", "export"], dir, engine.env);
    expectSuccess(exported);
    expect(exported.stdout).toContain("root@pam");
    expect(exported.stdout).not.toContain(password);
    expect(exported.stdout).not.toContain(TICKET_PREFIX);
    const vm = (await exportedResources(dir, engine.env)).find((r) => r.type.endsWith("ProxmoxVm"));
    expect(String(vm?.outputs?.["__provider"])).toContain(
      'require("pulumi-proxmox/dynamic-provider")',
    );

    const report = path.join(dir, "drift.json");
    const drift = await runBin(["drift", "--stack", "dev", "--report", report], dir, engine.env);
    printed += drift.stdout + drift.stderr;
    expectSuccess(drift);
    expect(readJson<{ resources: unknown[] }>(report).resources).toEqual([]);
    printed += fs.readFileSync(report, "utf8");
  });

  it("destroys it", async () => {
    await runRenewing(["destroy", "--yes", "--skip-preview"]);
    expect(guestVms(sim)).toEqual([]);
  });

  it("printed neither the password nor a ticket in any run", () => {
    expect(printed).toContain("pulumi-proxmox:");
    expect(printed).not.toContain(password);
    expect(printed).not.toContain(TICKET_PREFIX);
    expect(printed).not.toContain("PVEAuthCookie");
  });
});
