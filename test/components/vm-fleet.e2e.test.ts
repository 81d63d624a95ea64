import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { Simulator } from "../../simulator";
import { readIso } from "../../simulator/guest/iso9660";
import { driveVolume } from "../../simulator/model/vm-config";
import { exportedResources, pulumi } from "../e2e/support/engine";
import { guestVms, seedIsos } from "../e2e/support/proxmox-stack";
import { expectSuccess } from "../support/command-result";
import { useStack } from "../e2e/support/use-stack";
import { VM_TYPE } from "../../provider/entry";

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
  const { sim, engine, dir } = useStack(
    { name: "fleet", program: fleetOfThree },
    { simulator: { listingLagMs: 500 } },
  );

  it("creates three VMs spread round-robin over pve1 and pve2 with pulumi up", async () => {
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
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
    expectSuccess(drift);
  });

  it("destroys the fleet: no VM and no seed left on the simulator", async () => {
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(destroy.stdout).toContain("- 5 deleted");
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });
});

/** A fleet with a data disk, a second NIC, static addresses and one member overridden. */
const addressedFleet = `
const pulumi = require("@pulumi/pulumi");
const { VmFleet } = require("pulumi-proxmox/components");
const db = new VmFleet("db", {
  count: new pulumi.Config().requireNumber("count"),
  template: "debian-12-cloud", nodes: ["pve1", "pve2"], memory: 1024,
  disks: [{ interface: "scsi1", storage: "local-lvm", sizeGiB: 4 }],
  networks: [{ bridge: "vmbr0" }, { bridge: "vmbr1", vlan: 20 }],
  ipv4: { cidr: "10.10.0.0/24", gateway: "10.10.0.1", from: "10.10.0.200" },
  overrides: { "db-1": { memory: 2048 } },
});
exports.addresses = db.addresses;
exports.vmids = pulumi.all(db.vms.map((vm) => vm.vmid));
`;

describe("VmFleet with disks, two NICs, overrides and static addresses through the real engine", () => {
  const { sim, engine, dir } = useStack(
    { name: "fleet-addressed", program: addressedFleet },
    { simulator: { bridges: { vmbr0: "10.10.0.0/24", vmbr1: "10.20.0.0/24" } } },
  );
  const outputs = async () =>
    JSON.parse((await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout) as {
      vmids: number[];
      addresses: string[][];
    };
  const vmids = async () => (await outputs()).vmids;
  const configOf = (vmid: number) => sim.model.vms.get(vmid)?.config ?? {};
  beforeAll(async () => {
    const count = await pulumi(["config", "set", "count", "2"], dir, engine.env);
    expectSuccess(count);
  });

  it("creates each member with the data disk, both NICs and its own address in its seed", async () => {
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
    const [first = 0, second = 0] = await vmids();
    for (const vmid of [first, second]) {
      expect(String(configOf(vmid)["scsi1"])).toMatch(/^local-lvm:vm-\d+-disk-\d+,.*size=4G/);
      expect(String(configOf(vmid)["net1"])).toMatch(/bridge=vmbr1,tag=20/);
    }
    expect([configOf(first)["memory"], configOf(second)["memory"]].map(String)).toEqual([
      "1024",
      "2048",
    ]);
    expect(seedNetworkConfig(sim, first)).toMatchObject([
      { addresses: ["10.10.0.200/24"], gateway4: "10.10.0.1" },
      { dhcp4: true },
    ]);
    expect(seedNetworkConfig(sim, second)).toMatchObject([
      { addresses: ["10.10.0.201/24"], gateway4: "10.10.0.1" },
      { dhcp4: true },
    ]);
    // The guests configured what their seeds say: their first NIC has the static address.
    expect((await outputs()).addresses.map((addresses) => addresses[0])).toEqual([
      "10.10.0.200",
      "10.10.0.201",
    ]);
    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expectSuccess(drift);
  });

  it("adds a third member with the next address and changes nothing of the others", async () => {
    const before = await vmids();
    const configs = before.map((vmid) => JSON.stringify(configOf(vmid)));
    expect((await pulumi(["config", "set", "count", "3"], dir, engine.env)).code).toBe(0);
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
    expect(up.stdout).toContain("+ 1 created");
    expect(up.stdout).toContain("4 unchanged");
    expect(up.stdout).not.toMatch(/updated|replaced|deleted/);
    const after = await vmids();
    expect(after.slice(0, 2)).toEqual(before);
    expect(before.map((vmid) => JSON.stringify(configOf(vmid)))).toEqual(configs);
    expect(seedNetworkConfig(sim, after[2] ?? 0)[0]).toMatchObject({
      addresses: ["10.10.0.202/24"],
    });
  });

  it("destroys the fleet: no VM, no disk and no seed left on the simulator", async () => {
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
    const disks = sim.model.storages.flatMap((storage) =>
      ["pve1", "pve2"].flatMap((node) => sim.model.volumes(node, storage.storage)),
    );
    expect(disks.filter((v) => v.content === "images" && (v.vmid ?? 0) >= 10000)).toEqual([]);
  });
});

/** The `ethernets` of the network-config on the VM's seed ISO, as the simulator stores it. */
function seedNetworkConfig(sim: Simulator, vmid: number): Record<string, unknown>[] {
  const vm = sim.model.vms.get(vmid);
  const volid = driveVolume(String(vm?.config["ide2"] ?? ""));
  const storage = volid?.split(":")[0] ?? "";
  const seed = sim.model.volumes(vm?.node ?? "", storage).find((v) => v.volid === volid);
  const file =
    seed?.data === undefined ? undefined : readIso(seed.data).files.get("network-config");
  if (file === undefined) throw new Error(`VM ${vmid} has no seed with a network-config`);
  const config = parse(file.toString("utf8")) as { ethernets: Record<string, object> };
  return Object.values(config.ethernets) as Record<string, unknown>[];
}
