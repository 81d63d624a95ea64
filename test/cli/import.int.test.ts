import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../cli";
import { closeSharedDispatchers } from "../../provider/pve/api/dispatcher-registry";
import { startSimulator, type Simulator } from "../../simulator";
import { TestClient } from "../simulator/support/client";

const MARK = `pulumi-proxmox:${JSON.stringify({ v: 1, id: "0123456789abcdef", phase: "complete", node: "pve1", template: 9000, isoStorage: "local" })}`;

describe("pulumi-proxmox import (over HTTP)", () => {
  let sim: Simulator;
  let api: TestClient;
  let flags: string[];

  beforeAll(async () => {
    sim = await startSimulator({ listingLagMs: 0 });
    api = new TestClient(sim);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "import-"));
    fs.writeFileSync(path.join(dir, "token"), sim.apiToken);
    fs.writeFileSync(path.join(dir, "ca.pem"), sim.caCertPem);
    flags = [
      "--endpoint",
      sim.url,
      "--api-token-file",
      path.join(dir, "token"),
      "--ca-cert",
      path.join(dir, "ca.pem"),
    ];
    for (const [vmid, params] of [
      [7001, { tags: "web", description: "front" }],
      [7002, { tags: "web;prod", net0: "virtio,bridge=vmbr0" }],
      [7003, { tags: "db" }],
      [7004, { tags: "web", description: `theirs\n\n${MARK}` }],
    ] as const) {
      const res = await api.call("POST", "/nodes/pve1/qemu", {
        vmid,
        name: `vm-${vmid}`,
        memory: 1024,
        scsi0: "local-lvm:2",
        ...params,
      });
      await api.waitTask("pve1", (res.body as { data: string }).data);
    }
  });
  afterAll(async () => {
    await api.close();
    await closeSharedDispatchers();
    await sim.close();
  });
  beforeEach(() => sim.clearRequestLog());

  async function run(...args: string[]) {
    let stdout = "";
    let stderr = "";
    const code = await main(["import", ...args, ...flags], {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
    });
    return { code, stdout, stderr };
  }
  const writes = () => sim.requestLog.filter((r) => r.method !== "GET");

  it("prints one declaration per VM with the tag, and a comment for the marked one", async () => {
    const result = await run("--all", "--tag", "web", "--language", "js");
    expect(result.code, result.stderr).toBe(0);
    const declared = [
      ...result.stdout.matchAll(
        /new ProxmoxVm\("([^"]+)", \{\n {2}node: "pve1",\n {2}adopt: \{ vmid: (\d+) \}/g,
      ),
    ];
    expect(declared.map((m) => [m[1], Number(m[2])])).toEqual([
      ["vm-7001", 7001],
      ["vm-7002", 7002],
    ]);
    expect(result.stdout).toMatch(
      /^\/\/ Skipped: VM 7004 on pve1 carries the mark of a VM a pulumi-proxmox stack manages/m,
    );
    expect(result.stdout).not.toMatch(/7003|9000/);
    expect(writes()).toEqual([]);
  });

  it("names a VM with --name, in TypeScript by default", async () => {
    const result = await run("--vmid", "7001", "--name", "front");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^import \{ ProxmoxVm \} from "pulumi-proxmox";\n/);
    expect(result.stdout).toMatch(/^const front = new ProxmoxVm\("front", \{$/m);
    expect(result.stdout).toMatch(/^ {2}description: "front",$/m);
  });

  it.each([
    ["a VMID that does not exist", "7999", /VM 7999 does not exist in the cluster/],
    ["a template", "9000", /VM 9000 on pve1 is a template: import declares VMs/],
    [
      "a VM a stack manages",
      "7004",
      /VM 7004 on pve1 carries the mark of a VM a pulumi-proxmox stack manages/,
    ],
  ])("refuses %s with exit code 1 and writes nothing", async (_what, vmid, message) => {
    const result = await run("--vmid", vmid);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
    expect(writes()).toEqual([]);
  });

  it.each([
    [["--all", "--name", "x"], /--name names one VM/],
    [["--vmid", "7001", "--tag", "web"], /choose VMs for --all/],
    [["--vmid", "7001", "--all"], /pass --vmid N for one VM, or --all/],
    [["--vmid", "7001", "--language", "go"], /--language is ts or js, got go/],
    [["--vmid", "web"], /--vmid must be a VMID/],
    [["--vmid", "7001", "--provider", "dc2"], /--provider dc2 needs --stack/],
  ])("refuses the flags %j before it connects", async (args, message) => {
    const result = await run(...args);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(sim.requestLog).toEqual([]);
  });
});
