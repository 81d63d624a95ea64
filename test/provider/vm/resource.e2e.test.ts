import { describe, expect, it } from "vitest";
import { exportedResources, pulumi } from "../../e2e/support/engine";
import { guestVms, seedIsos } from "../../e2e/support/proxmox-stack";
import { expectFailure, expectSuccess } from "../../support/command-result";
import { useStack } from "../../e2e/support/use-stack";
import { VM_TYPE } from "../../../provider/entry";

const twoVms = `
const { ProxmoxVm } = require("pulumi-proxmox");
const web = new ProxmoxVm("web", {
  node: "pve1", template: 9000, cores: 2, memory: 1024, tags: ["Web", "demo"],
  cloudInit: { packages: ["nginx"] },
});
const db = new ProxmoxVm("db", { node: "pve2", template: "debian-12-cloud", cores: 1, memory: 2048 });
exports.web = { vmid: web.vmid, ip: web.ipv4Addresses, node: web.currentNode };
exports.db = { vmid: db.vmid, ip: db.ipv4Addresses, node: db.currentNode };
`;

describe("ProxmoxVm through the real engine against the simulator", () => {
  const { sim, engine, dir } = useStack(
    { name: "two-vms", program: twoVms },
    { simulator: { listingLagMs: 500 } },
  );

  it("creates two VMs with pulumi up and reports their addresses", async () => {
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
    expect(up.stdout).toContain("+ 3 created");
    expect(up.stdout).toMatch(/cloning template 9000/);

    const outputs = JSON.parse(
      (await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout,
    ) as Record<string, { vmid: number; ip: string[]; node: string }>;
    expect(outputs["web"]?.node).toBe("pve1");
    expect(outputs["db"]?.node).toBe("pve2");
    expect(outputs["web"]?.ip[0]).toMatch(/^10\.10\.0\.\d+$/);
    expect(guestVms(sim).sort()).toEqual([outputs["web"]?.vmid, outputs["db"]?.vmid].sort());
    expect(seedIsos(sim)).toHaveLength(2);
  });

  it("keeps the API token out of the state and the serialized provider tiny", async () => {
    const exported = await pulumi(["stack", "export"], dir, engine.env);
    const secret = sim.apiToken.split("=")[1] ?? "";
    expect(secret.length).toBeGreaterThan(8);
    expect(exported.stdout).not.toContain(secret);
    const vm = (await exportedResources(dir, engine.env)).find((r) => r.type === VM_TYPE);
    const serialized = String(vm?.outputs?.["__provider"]);
    expect(serialized).toContain('require("pulumi-proxmox/dynamic-provider")');
    expect(serialized.length).toBeLessThan(2048);
  });

  it("passes the drift check on the untouched stack, three times in a row, showing no diff", async () => {
    // With the program run (as `pulumi-proxmox drift` runs it), the engine compares the inputs
    // read returns with the stored ones and prints `refreshing [diff: -agent,…]` for any left out.
    for (const args of [[], ["--run-program"], ["--run-program"]]) {
      const drift = await pulumi(
        ["preview", "--refresh", "--expect-no-changes", ...args],
        dir,
        engine.env,
      );
      expectSuccess(drift);
      expect(drift.stdout).not.toContain("[diff:");
      expect(drift.stdout).not.toMatch(/refreshing \[/);
    }
  });

  it("fails the drift check, naming the VM, when a VM is stopped out of band", async () => {
    const vmid = guestVms(sim)[0] ?? 0;
    sim.faults.stopVm(vmid);
    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expectFailure(drift);
    expect(drift.stdout).toMatch(/~\s+pulumi-nodejs:dynamic\/proxmox:ProxmoxVm (web|db)/);
    // `up` puts it back: the VM is started again, on the same VMID.
    const up = await pulumi(["up", "--yes", "--skip-preview", "--refresh"], dir, engine.env);
    expectSuccess(up);
    expect(sim.model.vms.get(vmid)?.status).toBe("running");
  });

  it("destroys everything: no VM, no seed, no lock left on the simulator", async () => {
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
    expect([...sim.model.vms.values()].filter((vm) => vm.config["lock"])).toEqual([]);
  });
});
