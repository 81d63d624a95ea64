import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { pulumi, requireFromWorkspace } from "../../e2e/support/engine";
import { guestVms, seedIsos } from "../../e2e/support/proxmox-stack";
import { expectFailure, expectSuccess } from "../../support/command-result";
import { useStack } from "../../e2e/support/use-stack";

const program = (settings: { cores: number; packages: string[]; template: number }) => `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("app", {
  node: "pve1", template: ${settings.template}, cores: ${settings.cores}, memory: 1024,
  cloudInit: { packages: ${JSON.stringify(settings.packages)} },
});
exports.vmid = vm.vmid;
exports.seed = vm.seedVolid;
`;

describe("ProxmoxVm changes and drift through the real engine", () => {
  const { sim, engine, dir } = useStack(
    { name: "changes", program: program({ cores: 2, packages: ["curl"], template: 9000 }) },
    { simulator: { listingLagMs: 300 }, destroyAfter: true },
  );
  const write = (settings: Parameters<typeof program>[0]) =>
    fs.writeFileSync(path.join(dir, "index.js"), program(settings));
  const outputs = async () =>
    JSON.parse((await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout) as {
      vmid: number;
      seed: string;
    };
  const up = async () => {
    const result = await pulumi(["up", "--yes", "--skip-preview", "--refresh"], dir, engine.env);
    expectSuccess(result);
    return result;
  };
  const driftCheck = () =>
    pulumi(["preview", "--refresh", "--expect-no-changes", "--diff"], dir, engine.env);

  beforeAll(() => up());

  it("changes cores in place, on the same VMID", async () => {
    const before = await outputs();
    write({ cores: 4, packages: ["curl"], template: 9000 });
    const preview = await pulumi(["preview", "--diff"], dir, engine.env);
    expect(preview.stdout).toMatch(/~ pulumi-nodejs:dynamic\/proxmox:ProxmoxVm: \(update\)/);
    expect(preview.stdout).toMatch(/~ cores\s*: 2 => 4/);
    await up();
    expect((await outputs()).vmid).toBe(before.vmid);
    expect(sim.model.vms.get(before.vmid)?.config["cores"]).toBe(4);
  });

  it("re-seeds in place when cloud-init changes: same VMID, new seed, old seed gone", async () => {
    const before = await outputs();
    write({ cores: 4, packages: ["curl", "nginx"], template: 9000 });
    await up();
    const after = await outputs();
    expect(after.vmid).toBe(before.vmid);
    expect(after.seed).not.toBe(before.seed);
    expect(seedIsos(sim)).toEqual([after.seed]);
  });

  it("settles: an untouched stack shows zero changes three times in a row", async () => {
    for (let i = 0; i < 3; i++) {
      const drift = await driftCheck();
      expectSuccess(drift);
    }
  });

  it.each([
    [
      "cores changed",
      (vmid: number) => sim.faults.setConfig(vmid, { cores: 8 }),
      /cores\s*: 4 => 8|cores\s*: 8 => 4/,
    ],
    ["memory changed", (vmid: number) => sim.faults.setConfig(vmid, { memory: 4096 }), /memory/],
    ["stopped", (vmid: number) => sim.faults.stopVm(vmid), /started/],
    ["moved to another node", (vmid: number) => sim.faults.migrateVm(vmid, "pve2"), /currentNode/],
    [
      "deleted",
      (vmid: number) => sim.faults.deleteVm(vmid),
      /\+ pulumi-nodejs:dynamic\/proxmox:ProxmoxVm: \(create\)/,
    ],
  ])("detects a VM %s out of band, naming the property", async (_what, change, named) => {
    change((await outputs()).vmid);
    const drift = await driftCheck();
    expectFailure(drift);
    expect(drift.stdout).toMatch(named);
    expect(drift.stdout).toContain("ProxmoxVm");
    await up();
    const settled = await driftCheck();
    expectSuccess(settled);
  });

  it("reports drift in the automation API's preview result", async () => {
    type Automation = typeof import("@pulumi/pulumi/automation");
    const auto = requireFromWorkspace("@pulumi/pulumi/automation") as Automation;
    const stack = await auto.LocalWorkspace.selectStack(
      { stackName: "dev", workDir: dir },
      {
        envVars: Object.fromEntries(
          Object.entries(engine.env).filter((e): e is [string, string] => typeof e[1] === "string"),
        ),
      },
    );
    sim.faults.setConfig((await outputs()).vmid, { cores: 6 });
    const preview = await stack.preview({ refresh: true });
    expect(preview.changeSummary).toMatchObject({ update: 1 });
    await up();
    expect((await stack.preview({ refresh: true })).changeSummary).toEqual({ same: 2 });
  });

  it("replaces the VM when the template changes: new VMID, old VM and seed gone", async () => {
    const before = await outputs();
    write({ cores: 4, packages: ["curl", "nginx"], template: 9001 });
    const preview = await pulumi(["preview", "--diff"], dir, engine.env);
    expect(preview.stdout).toMatch(/\+-pulumi-nodejs:dynamic\/proxmox:ProxmoxVm: \(replace\)/);
    expect(preview.stdout).toMatch(/~ template\s*: 9000 => 9001/);
    await up();
    const after = await outputs();
    expect(after.vmid).not.toBe(before.vmid);
    expect(guestVms(sim)).toEqual([after.vmid]);
    expect(seedIsos(sim)).toEqual([after.seed]);
  });
});
