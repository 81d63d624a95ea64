import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../simulator";
import { engineEnv, exportedResources, pulumi, type EngineEnv } from "../e2e/support/engine";
import { guestVms, proxmoxStack, seedIsos } from "../e2e/support/proxmox-stack";

const VM_TYPE = "pulumi-nodejs:dynamic/proxmox:ProxmoxVm";

const fleetOfThree = `
const pulumi = require("@pulumi/pulumi");
const { VmFleet } = require("pulumi-proxmox/components");
const web = new VmFleet("web", {
  count: 3, template: "debian-12-cloud", nodes: ["pve1", "pve2"],
  cores: 1, memory: 1024, tags: ["fleet"], cloudInit: { packages: ["nginx"] },
});
exports.addresses = web.addresses;
exports.nodes = web.nodes;
exports.vmids = pulumi.all(web.vms.map((vm) => vm.vmid));
exports.names = pulumi.all(web.vms.map((vm) => vm.vmName));
`;

describe("VmFleet through the real engine against the simulator", () => {
  let sim: Simulator;
  let engine: EngineEnv;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ listingLagMs: 500 });
    engine = engineEnv();
    dir = await proxmoxStack("fleet", fleetOfThree, sim, engine);
  });
  afterAll(async () => {
    engine.cleanup();
    await sim.close();
  });

  it("creates three VMs spread round-robin over pve1 and pve2 with pulumi up", async () => {
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toContain("+ 5 created");

    const outputs = JSON.parse(
      (await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout,
    ) as { addresses: string[][]; nodes: string[]; vmids: number[]; names: string[] };
    expect(outputs.nodes).toEqual(["pve1", "pve2", "pve1"]);
    expect(outputs.addresses).toHaveLength(3);
    for (const addresses of outputs.addresses) expect(addresses[0]).toMatch(/^10\.10\.0\.\d+$/);
    expect(outputs.names.map((name) => name.replace(/-[0-9a-f]{6}$/, ""))).toEqual([
      "web-0",
      "web-1",
      "web-2",
    ]);
    expect(guestVms(sim).sort()).toEqual([...outputs.vmids].sort());
    expect(outputs.vmids.map((vmid) => sim.model.vms.get(vmid)?.node)).toEqual([
      "pve1",
      "pve2",
      "pve1",
    ]);
    expect(seedIsos(sim)).toHaveLength(3);
  });

  it("records the members as children of the component in the state", async () => {
    const resources = await exportedResources(dir, engine.env);
    const urns = resources
      .map((r) => (r as { urn?: string }).urn ?? "")
      .filter((urn) => urn.includes(VM_TYPE));
    // State lists resources in the order they finished, so sort.
    expect(urns.map((urn) => urn.split("::").slice(2).join("::")).sort()).toEqual([
      `proxmox:index:VmFleet$${VM_TYPE}::web-0`,
      `proxmox:index:VmFleet$${VM_TYPE}::web-1`,
      `proxmox:index:VmFleet$${VM_TYPE}::web-2`,
    ]);
  });

  it("passes the drift check on the untouched fleet", async () => {
    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
  });

  it("destroys the fleet: no VM and no seed left on the simulator", async () => {
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);
    expect(destroy.stdout).toContain("- 5 deleted");
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });
});
