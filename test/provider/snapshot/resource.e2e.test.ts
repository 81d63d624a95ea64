import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runBin } from "../../cli/support";
import { guestVms } from "../../e2e/support/proxmox-stack";
import { useStack } from "../../e2e/support/use-stack";
import { expectExitCode, expectSuccess } from "../../support/command-result";

/** A linked clone (a qcow2 overlay PVE can snapshot) and the VmSnapshots of `snapshots`. */
function program(cores: number, snapshots: Record<string, string>): string {
  const declared = Object.entries(snapshots)
    .map(
      ([name, description]) =>
        `new VmSnapshot(${JSON.stringify(name)}, { vm: web, description: ${JSON.stringify(description)} });`,
    )
    .join("\n");
  return `
const { ProxmoxVm, VmSnapshot } = require("pulumi-proxmox");
const web = new ProxmoxVm("web", {
  node: "pve1", template: 9000, clone: { full: false }, cores: ${cores}, memory: 512,
});
${declared}
exports.vmid = web.vmid;
`;
}

describe("VmSnapshot and pulumi-proxmox rollback through the real engine", () => {
  const stack = useStack({ name: "snapshots", program: program(1, { "before-upgrade": "pre" }) });
  const write = (source: string) => fs.writeFileSync(path.join(stack.dir, "index.js"), source);
  const vm = () => {
    const [vmid] = guestVms(stack.sim);
    const record = vmid === undefined ? undefined : stack.sim.model.vms.get(vmid);
    if (vmid === undefined || record === undefined) throw new Error("no guest VM");
    return { vmid, record };
  };
  const snapshots = () => Object.keys(vm().record.snapshots ?? {});
  const bin = (args: string[]) => runBin(args, stack.dir, stack.engine.env);

  it("takes the snapshot on up, with its description", async () => {
    await stack.up();
    expect(snapshots()).toEqual(["before-upgrade"]);
    expect(vm().record.snapshots?.["before-upgrade"]?.description).toBe("pre");
  });

  it("reports a snapshot deleted outside Pulumi as drift, and up takes it again", async () => {
    delete vm().record.snapshots?.["before-upgrade"];
    expectExitCode(await bin(["drift", "--stack", "dev", "--quiet"]), 2);
    await stack.up("--refresh");
    expect(snapshots()).toEqual(["before-upgrade"]);
  });

  it("changes a description in place", async () => {
    write(program(1, { "before-upgrade": "before the 2.0 upgrade" }));
    const up = await stack.up();
    expect(up.stdout).toContain("1 updated");
    expect(vm().record.snapshots?.["before-upgrade"]?.description).toBe("before the 2.0 upgrade");
  });

  it("rolls the VM back on purpose and shows the drift up will then see", async () => {
    write(program(2, { "before-upgrade": "before the 2.0 upgrade" }));
    await stack.up();
    expect(vm().record.config["cores"]).toBe(2);
    const rollback = await bin([
      "rollback",
      "--stack",
      "dev",
      "--vm",
      "web",
      "--snapshot",
      "before-upgrade",
      "--start",
      "--quiet",
    ]);
    expectSuccess(rollback);
    expect(vm().record.config["cores"]).toBe(1);
    expect(vm().record.status).toBe("running");
    expect(rollback.stdout).toContain("rolled back to snapshot before-upgrade");
    expect(rollback.stdout).toMatch(/Drift found in stack dev: 1 resource\(s\) would change/);
    expect(rollback.stdout).toContain("cores");
  });

  it("refuses to roll back a VM whose mark names another owner", async () => {
    const { vmid, record } = vm();
    const description = record.config["description"];
    stack.sim.faults.setConfig(vmid, { description: "taken over by hand" });
    const refused = await bin([
      "rollback",
      "--stack",
      "dev",
      "--vm",
      "web",
      "--snapshot",
      "before-upgrade",
      "--quiet",
    ]);
    stack.sim.faults.setConfig(vmid, { description: description ?? null });
    expectExitCode(refused, 1);
    expect(refused.stderr).toContain(`VM ${vmid} on pve1 does not carry stack dev's mark for web`);
  });

  it("destroys a VM with two snapshot resources", async () => {
    write(program(1, { "before-upgrade": "pre", nightly: "n" }));
    await stack.up();
    expect(snapshots().sort()).toEqual(["before-upgrade", "nightly"]);
    expectSuccess(await stack.pulumi(["destroy", "--yes", "--skip-preview"]));
    expect(guestVms(stack.sim)).toEqual([]);
  });

  it("deletes snapshot resources whose VM PVE destroyed with them", async () => {
    await stack.up();
    stack.sim.faults.deleteVm(vm().vmid);
    expectSuccess(await stack.pulumi(["destroy", "--yes", "--skip-preview"]));
    expect(guestVms(stack.sim)).toEqual([]);
  });
});
