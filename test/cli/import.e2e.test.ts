import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { guestVms } from "../e2e/support/proxmox-stack";
import { useStack } from "../e2e/support/use-stack";
import { run, tsc } from "../examples/support";
import { expectSuccess } from "../support/command-result";
import { TestClient } from "../simulator/support/client";
import { runBin } from "./support";

const LEGACY = 4321;
const OWN_TEXT = "Legacy web server\nowned by the ops team";

/** A VM made the way an admin makes one, over the API: two disks, two NICs, text, tags, a pool. */
async function legacyVm(client: TestClient): Promise<Record<string, unknown>> {
  const pool = await client.call("POST", "/pools", { poolid: "legacy" });
  expect(pool.status, pool.text).toBe(200);
  const res = await client.call("POST", "/nodes/pve1/qemu", {
    vmid: LEGACY,
    name: "legacy-web",
    cores: 2,
    memory: 1024,
    scsi0: "local-lvm:4,discard=on",
    scsi1: "local-lvm:2",
    net0: "virtio,bridge=vmbr0",
    net1: "e1000,bridge=vmbr0,firewall=1",
    ide2: "local-lvm:cloudinit",
    onboot: 1,
    tags: "web;prod",
    description: OWN_TEXT,
  });
  expect(res.status, res.text).toBe(200);
  await client.waitTask("pve1", (res.body as { data: string }).data);
  const join = await client.call("PUT", "/pools/legacy", { vms: LEGACY });
  expect(join.status, join.text).toBe(200);
  const start = await client.call("POST", `/nodes/pve1/qemu/${LEGACY}/status/start`);
  await client.waitTask("pve1", (start.body as { data: string }).data);
  return client.vmConfig("pve1", LEGACY);
}

describe("pulumi-proxmox import, pasted into a program, through the real engine", () => {
  // The program is what import prints: written once the VM exists.
  const stack = useStack({ name: "cli-import", program: "" });
  const { sim, engine, dir } = stack;
  let before: Record<string, unknown>;
  let printed: string;
  let typescript: string;

  beforeAll(async () => {
    const client = new TestClient(sim);
    try {
      before = await legacyVm(client);
    } finally {
      await client.close();
    }
    sim.clearRequestLog();
    const result = await runBin(
      ["import", "--vmid", String(LEGACY), "--stack", "dev", "--language", "js"],
      dir,
      engine.env,
    );
    expectSuccess(result);
    printed = result.stdout;
    fs.writeFileSync(path.join(dir, "index.js"), printed);
    const ts = await runBin(
      ["import", "--vmid", String(LEGACY), "--stack", "dev"],
      dir,
      engine.env,
    );
    expectSuccess(ts);
    typescript = ts.stdout;
  });

  const writes = () =>
    sim.requestLog.filter((e) => e.method !== "GET").map((e) => `${e.method} ${e.path}`);

  it("prints the VM's declaration, reading only", () => {
    expect(writes()).toEqual([]);
    expect(printed).toMatch(/^const \{ ProxmoxVm \} = require\("pulumi-proxmox"\);\n/);
    expect(printed).toContain('const legacyWeb = new ProxmoxVm("legacy-web", {');
    expect(printed).toContain(`adopt: { vmid: ${LEGACY} },`);
    expect(printed).toContain('description: "Legacy web server\\nowned by the ops team",');
    expect(printed).toContain('pool: "legacy",');
    expect(printed).toMatch(/^\/\/ Kept as they are, as no input says them: ide2\.$/m);
  });

  it("adopts the VM with up, writing nothing but the mark: no clone, no reboot", async () => {
    const up = await stack.up();
    expect(up.stdout).toMatch(/adopting \(no clone\): no setting changes/);
    expect(guestVms(sim)).toEqual([LEGACY]);
    expect(writes()).toEqual([`POST /nodes/pve1/qemu/${LEGACY}/config`]);
    const client = new TestClient(sim);
    try {
      const after = await client.vmConfig("pve1", LEGACY);
      const changed = Object.keys({ ...before, ...after }).filter(
        (key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]) && key !== "digest",
      );
      expect(changed).toEqual(["description"]);
      expect(String(after["description"])).toMatch(
        /^Legacy web server\nowned by the ops team\n\npulumi-proxmox:\{/,
      );
    } finally {
      await client.close();
    }
  });

  it("finds no drift afterwards: the engine's and the CLI's checks are both clean", async () => {
    sim.clearRequestLog();
    expectSuccess(await stack.pulumi(["preview", "--refresh", "--expect-no-changes"]));
    const drift = await runBin(["drift", "--stack", "dev"], dir, engine.env);
    expectSuccess(drift);
    // Nothing the refresh reads back differs from what up stored (an agent, say).
    expect(drift.stdout).toMatch(/No drift/);
    expect(drift.stdout).not.toMatch(/→/);
    expect(writes()).toEqual([]);
  });

  it("prints TypeScript that type-checks against the package", async () => {
    const result = await runBin(
      ["import", "--all", "--tag", "web", "--stack", "dev"],
      dir,
      engine.env,
    );
    expectSuccess(result);
    // Adopted above, the VM carries its mark now: --all passes it over, saying why.
    expect(result.stdout).toMatch(
      new RegExp(
        `^// Skipped: VM ${LEGACY} on pve1 is managed by resource legacy-web of stack`,
        "m",
      ),
    );
    const ts = path.join(dir, "typed");
    fs.mkdirSync(ts);
    // The declaration printed before the adoption, in TypeScript.
    fs.writeFileSync(path.join(ts, "index.ts"), typescript);
    fs.writeFileSync(
      path.join(ts, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: "commonjs",
          target: "es2022",
          skipLibCheck: true,
          types: [],
        },
        files: ["index.ts"],
      }),
    );
    const check = await run("node", [tsc, "-p", ts], ts);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  });

  it("destroys the adopted VM", async () => {
    expectSuccess(await stack.pulumi(["destroy", "--yes", "--skip-preview"]));
    expect(guestVms(sim)).toEqual([]);
  });

  it("reads through an explicit Provider with --provider, and declares the VMs on it", async () => {
    const client = new TestClient(sim);
    try {
      const res = await client.call("POST", "/nodes/pve1/qemu", { vmid: 4322, memory: 512 });
      await client.waitTask("pve1", (res.body as { data: string }).data);
    } finally {
      await client.close();
    }
    fs.writeFileSync(
      path.join(dir, "index.js"),
      `const pulumi = require("@pulumi/pulumi");
const { Provider } = require("pulumi-proxmox");
new Provider("dc-2", {
  endpoint: ${JSON.stringify(sim.url)},
  apiToken: pulumi.secret(${JSON.stringify(sim.apiToken)}),
  caCert: ${JSON.stringify(sim.caCertPem)},
});
`,
    );
    await stack.up();
    // Only the Provider knows the cluster now.
    expectSuccess(await stack.pulumi(["config", "rm", "proxmox:endpoint"]));
    const result = await runBin(
      ["import", "--vmid", "4322", "--stack", "dev", "--provider", "dc-2", "--language", "js"],
      dir,
      engine.env,
    );
    expectSuccess(result);
    expect(result.stdout).toContain('const vm4322 = new ProxmoxVm("vm-4322", {\n  node: "pve1",');
    expect(result.stdout).toMatch(/^\}, \{ provider: dc2 \}\);$/m);
    expectSuccess(await stack.pulumi(["destroy", "--yes", "--skip-preview"]));
  });
});
