import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../simulator";
import { engineEnv, pulumi, writeProgram, type EngineEnv } from "../../e2e/support/engine";
import { guestVms } from "../../e2e/support/proxmox-stack";
import { expectFailure, expectSuccess } from "../../support/command-result";

/**
 * Two clusters in one program: a `Provider` each (one with a token, one with a password), a VM
 * on each, and no `proxmox:*` stack config at all.
 */
const program = `
const pulumi = require("@pulumi/pulumi");
const { Provider, ProxmoxVm } = require("pulumi-proxmox");
const config = new pulumi.Config();
const dc1 = new Provider("dc1", {
  endpoint: config.require("dc1Endpoint"),
  apiToken: config.requireSecret("dc1Token"),
  caCert: "dc1-ca.pem",
});
const dc2 = new Provider("dc2", {
  endpoint: config.require("dc2Endpoint"),
  username: "root@pam",
  password: config.requireSecret("dc2Password"),
  caCert: "dc2-ca.pem",
  maxConnections: 4,
});
const one = new ProxmoxVm("one", { node: "pve1", template: 9000, cores: 1 }, { provider: dc1 });
const two = new ProxmoxVm("two", { node: "pve2", template: 9000, cores: 2 }, { provider: dc2 });
exports.one = one.vmid;
exports.two = two.vmid;
`;

describe("explicit providers: one program, two clusters", () => {
  let dc1: Simulator;
  let dc2: Simulator;
  let engine: EngineEnv;
  let dir: string;

  beforeAll(async () => {
    [dc1, dc2] = await Promise.all([startSimulator(), startSimulator()]);
    engine = engineEnv();
    dir = writeProgram("two-clusters", program);
    fs.writeFileSync(path.join(dir, "dc1-ca.pem"), dc1.caCertPem);
    fs.writeFileSync(path.join(dir, "dc2-ca.pem"), dc2.caCertPem);
    for (const args of [
      ["stack", "init", "dev"],
      ["config", "set", "dc1Endpoint", dc1.url],
      ["config", "set", "--secret", "dc1Token", dc1.apiToken],
      ["config", "set", "dc2Endpoint", dc2.url],
      ["config", "set", "--secret", "dc2Password", dc2.rootPassword],
    ]) {
      const result = await pulumi(args, dir, engine.env);
      if (result.code !== 0) throw new Error(`pulumi ${args.join(" ")}: ${result.stderr}`);
    }
  });
  afterAll(async () => {
    engine.cleanup();
    await Promise.all([dc1.close(), dc2.close()]);
  });

  it("creates each VM on its own cluster, each provider with its own login", async () => {
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
    const outputs = JSON.parse(
      (await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout,
    ) as { one: number; two: number };
    expect(guestVms(dc1)).toEqual([outputs.one]);
    expect(guestVms(dc2)).toEqual([outputs.two]);
    expect(dc1.model.vms.get(outputs.one)?.config["cores"]).toBe(1);
    expect(dc2.model.vms.get(outputs.two)?.config["cores"]).toBe(2);
    // dc1 saw only its token, dc2 only tickets of its password login.
    expect(new Set(dc1.requestLog.map((e) => e.tokenId))).toEqual(new Set(["root@pam!ci"]));
    expect(dc2.requestLog.filter((e) => e.tokenId !== undefined)).toEqual([]);
    expect(dc2.requestLog.some((e) => e.path === "/access/ticket" && e.status === 200)).toBe(true);
  });

  it("keeps both providers' credentials secret in the state", async () => {
    const exported = await pulumi(["stack", "export"], dir, engine.env);
    expectSuccess(exported);
    expect(exported.stdout).toContain("pulumi:providers:pulumi-nodejs");
    expect(exported.stdout).not.toContain(dc1.apiToken.split("=")[1] ?? "");
    expect(exported.stdout).not.toContain(dc2.rootPassword);
  });

  it("passes the drift check on both clusters", async () => {
    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expectSuccess(drift);
  });

  it("sees drift on the cluster it happened on", async () => {
    const vmid = guestVms(dc2)[0] ?? 0;
    dc2.faults.stopVm(vmid);
    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expectFailure(drift);
    expect(drift.stdout).toMatch(/~ {2}\S+:ProxmoxVm two update/);
    expect(drift.stdout).not.toMatch(/~ {2}\S+:ProxmoxVm one update/);
    const up = await pulumi(["up", "--yes", "--refresh", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
  });

  it("destroys both, leaving nothing on either cluster", async () => {
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(dc1)).toEqual([]);
    expect(guestVms(dc2)).toEqual([]);
  });
});
