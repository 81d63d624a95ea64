import * as pulumi from "@pulumi/pulumi";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VmFleet, VmFleetArgsError, type VmFleetMemberArgs } from "../../components";
import { VM_TYPE } from "../../provider/entry";

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

let registered: Registered[] = [];

// One mock monitor for the file: a component registers its outputs after its constructor
// returns, and a monitor swapped in between would not know its URN.
beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        registered.push({ type: args.type, name: args.name, inputs: args.inputs });
        const index = Number(args.name.split("-").pop());
        return {
          id: `${args.name}-id`,
          state: {
            ...args.inputs,
            vmid: 10000 + index,
            currentNode: args.inputs["node"],
            ipv4Addresses: [`10.10.0.${10 + index}`],
          },
        };
      },
      call: (args) => args.inputs,
    },
    "fleet-project",
    "dev",
    false,
  );
});
beforeEach(() => {
  registered = [];
});

function resolve<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((done) => output.apply(done));
}

/** Waits until the fleet and every member are registered with the mock monitor. */
async function settled(fleet: VmFleet): Promise<void> {
  await Promise.all([resolve(fleet.urn), ...fleet.vms.map((vm) => resolve(vm.id))]);
}

/**
 * The inputs of each VM child in member order (children whose inputs hold Outputs register
 * later), without the serialized provider (a closure text).
 */
function vmInputs(): Record<string, unknown>[] {
  return registered
    .filter((r) => r.type === VM_TYPE)
    .sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }))
    .map(({ inputs }) => {
      const { __provider: provider, ...rest } = inputs;
      expect(typeof provider).toBe("string");
      return rest;
    });
}

describe("VmFleet", () => {
  it("registers one component and one ProxmoxVm per member, named from the component", async () => {
    const fleet = new VmFleet("web", {
      count: 3,
      template: "debian-12-cloud",
      nodes: ["pve1", "pve2"],
      cores: 2,
      memory: 1024,
      tags: ["web"],
      cloudInit: { packages: ["nginx"] },
    });
    await settled(fleet);

    expect(registered.map((r) => [r.type, r.name])).toEqual([
      ["proxmox:index:VmFleet", "web"],
      [VM_TYPE, "web-0"],
      [VM_TYPE, "web-1"],
      [VM_TYPE, "web-2"],
    ]);
    expect(vmInputs()).toEqual(
      [0, 1, 2].map((i) => ({
        node: i === 1 ? "pve2" : "pve1",
        template: "debian-12-cloud",
        cores: 2,
        memory: 1024,
        tags: ["web"],
        cloudInit: { packages: ["nginx"], hostname: `web-${i}` },
        identity: { project: "fleet-project", stack: "dev", name: `web-${i}` },
      })),
    );
  });

  it("parents every member to the component", async () => {
    const fleet = new VmFleet("web", { count: 2, template: 9000, nodes: ["pve1"] });
    await settled(fleet);
    // A child's URN carries its parent's type: ...::proxmox:index:VmFleet$<child type>::<name>.
    expect(await resolve(fleet.urn)).toBe(
      "urn:pulumi:dev::fleet-project::proxmox:index:VmFleet::web",
    );
    expect(await Promise.all(fleet.vms.map((vm) => resolve(vm.urn)))).toEqual([
      `urn:pulumi:dev::fleet-project::proxmox:index:VmFleet$${VM_TYPE}::web-0`,
      `urn:pulumi:dev::fleet-project::proxmox:index:VmFleet$${VM_TYPE}::web-1`,
    ]);
  });

  it("keeps least-loaded members on their node when the loads change later", async () => {
    const seen: [string, pulumi.ResourceOptions][] = [];
    const record: pulumi.ResourceTransformation = ({ name, opts }) => {
      seen.push([name, opts]);
      return undefined;
    };
    const sticky = new VmFleet(
      "sticky",
      { count: 2, template: 9000, nodes: ["pve1"], placement: "least-loaded", nodeLoads: {} },
      { transformations: [record] },
    );
    const plain = new VmFleet(
      "plain",
      { count: 1, template: 9000, nodes: ["pve1"] },
      { transformations: [record] },
    );
    await Promise.all([settled(sticky), settled(plain)]);
    const members = seen.filter(([name]) => name.includes("-"));
    expect(members.map(([name, opts]) => [name, opts.ignoreChanges])).toEqual([
      ["sticky-0", ["node"]],
      ["sticky-1", ["node"]],
      ["plain-0", undefined],
    ]);
    expect(members.map(([, opts]) => opts.parent === sticky)).toEqual([true, true, false]);
    expect(members.map(([, opts]) => opts.parent === plain)).toEqual([false, false, true]);
  });

  it("outputs each member's addresses and node, index by index", async () => {
    const fleet = new VmFleet("db", { count: 3, template: 9000, nodes: ["pve1", "pve2"] });
    await settled(fleet);
    expect(await resolve(fleet.addresses)).toEqual([
      ["10.10.0.10"],
      ["10.10.0.11"],
      ["10.10.0.12"],
    ]);
    expect(await resolve(fleet.nodes)).toEqual(["pve1", "pve2", "pve1"]);
    expect(fleet.vms).toHaveLength(3);
  });

  it("places members least-loaded from the given node loads", async () => {
    const fleet = new VmFleet("app", {
      count: 4,
      template: 9000,
      nodes: ["pve1", "pve2", "pve3"],
      placement: "least-loaded",
      nodeLoads: Promise.resolve({ pve1: 3, pve2: 1 }),
    });
    await settled(fleet);
    expect(await resolve(fleet.nodes)).toEqual(["pve3", "pve2", "pve3", "pve2"]);
    expect(vmInputs().map((inputs) => inputs["node"])).toEqual(["pve3", "pve2", "pve3", "pve2"]);
  });

  it("derives a DNS-safe hostname from each member's name", async () => {
    const fleet = new VmFleet("Web_Tier", { count: 1, template: 9000, nodes: ["pve1"] });
    await settled(fleet);
    expect(vmInputs()[0]?.["cloudInit"]).toEqual({ hostname: "web-tier-0" });
  });

  it("registers no member for a count of 0 and outputs empty lists", async () => {
    const fleet = new VmFleet("none", { count: 0, template: 9000, nodes: ["pve1"] });
    await settled(fleet);
    expect(await resolve(fleet.addresses)).toEqual([]);
    expect(await resolve(fleet.nodes)).toEqual([]);
    expect(registered.map((r) => r.name)).toEqual(["none"]);
  });

  it("passes the whole VM spec to every member: disks, NICs, CPU, firmware", async () => {
    const spec: VmFleetMemberArgs = {
      cpu: { type: "host", cores: 2 },
      memory: { sizeMiB: 2048, balloonMiB: 1024 },
      disks: [
        { interface: "scsi0", sizeGiB: 16 },
        { interface: "scsi1", storage: "local-lvm", sizeGiB: 50, discard: true },
      ],
      networks: [{ bridge: "vmbr0" }, { bridge: "vmbr1", vlan: 30, mtu: 9000 }],
      bios: "ovmf",
      efiDisk: { storage: "local-lvm" },
      machine: "q35",
      onBoot: true,
      startup: { order: 2 },
    };
    const fleet = new VmFleet("db", { count: 2, template: 9000, nodes: ["pve1"], ...spec });
    await settled(fleet);
    expect(vmInputs()).toEqual(
      [0, 1].map((i) =>
        expect.objectContaining({
          ...spec,
          node: "pve1",
          template: 9000,
          cloudInit: { hostname: `db-${i}` },
        }),
      ),
    );
  });

  it("applies an override to its member only, keyed by index or by member name", async () => {
    const fleet = new VmFleet("app", {
      count: 3,
      template: 9000,
      nodes: ["pve1"],
      cores: 2,
      tags: ["app"],
      cloudInit: { packages: ["nginx"] },
      overrides: {
        0: { cores: 8 },
        "app-2": { disks: [{ interface: "scsi1", sizeGiB: 100 }], cloudInit: { packages: [] } },
      },
    });
    await settled(fleet);
    const inputs = vmInputs();
    expect(inputs.map((vm) => [vm["cores"], vm["disks"], vm["tags"], vm["cloudInit"]])).toEqual([
      [8, undefined, ["app"], { packages: ["nginx"], hostname: "app-0" }],
      [2, undefined, ["app"], { packages: ["nginx"], hostname: "app-1" }],
      [2, [{ interface: "scsi1", sizeGiB: 100 }], ["app"], { packages: [], hostname: "app-2" }],
    ]);
  });

  it("puts each member's static address on its first NIC", async () => {
    const fleet = new VmFleet("net", {
      count: 3,
      template: 9000,
      nodes: ["pve1"],
      networks: [{ bridge: "vmbr0" }, { bridge: "vmbr1" }],
      ipv4: { cidr: "10.20.0.0/24", gateway: "10.20.0.1", from: "10.20.0.10" },
      overrides: { 1: { networks: [{ bridge: "vmbr2" }] } },
    });
    await settled(fleet);
    const gateway = "10.20.0.1";
    expect(vmInputs().map((vm) => vm["networks"])).toEqual([
      [{ bridge: "vmbr0", ipv4: { address: "10.20.0.10/24", gateway } }, { bridge: "vmbr1" }],
      [{ bridge: "vmbr2", ipv4: { address: "10.20.0.11/24", gateway } }],
      [{ bridge: "vmbr0", ipv4: { address: "10.20.0.12/24", gateway } }, { bridge: "vmbr1" }],
    ]);
  });

  it("gives the existing members the same inputs when the fleet grows", async () => {
    const args = {
      template: 9000,
      nodes: ["pve1", "pve2"],
      ipv4: { cidr: "10.0.0.0/24", gateway: "10.0.0.1" },
      overrides: { 1: { memory: 4096 } },
    };
    await settled(new VmFleet("grow", { ...args, count: 2 }));
    const before = vmInputs();
    registered = [];
    await settled(new VmFleet("grow", { ...args, count: 3 }));
    const after = vmInputs();
    expect(after.slice(0, 2)).toEqual(before);
    expect(after[2]?.["network"]).toEqual({
      ipv4: { address: "10.0.0.4/24", gateway: "10.0.0.1" },
    });
  });

  it("registers nothing when the address pool is too small for the count", () => {
    expect(
      () =>
        new VmFleet("small", {
          count: 3,
          template: 9000,
          nodes: ["pve1"],
          ipv4: { cidr: "10.0.0.0/30", gateway: "10.0.0.1" },
        }),
    ).toThrow(
      "VmFleet small: ipv4.cidr: has room for 1 member from 10.0.0.2 to 10.0.0.2, but count is 3",
    );
    expect(registered).toEqual([]);
  });

  it("registers nothing when a member's first NIC already has a static address", () => {
    expect(
      () =>
        new VmFleet("fixed", {
          count: 2,
          template: 9000,
          nodes: ["pve1"],
          ipv4: { cidr: "10.0.0.0/24" },
          overrides: { 1: { network: { ipv4: { address: "10.0.0.50/24" } } } },
        }),
    ).toThrow(VmFleetArgsError);
    expect(registered).toEqual([]);
  });

  it("rejects least-loaded placement without node loads", () => {
    expect(
      () =>
        new VmFleet("x", { count: 1, template: 9000, nodes: ["pve1"], placement: "least-loaded" }),
    ).toThrow(
      'VmFleet x: placement: is "least-loaded", which needs nodeLoads: each node\'s guest count from one cluster listing (nodeLoadsFromListing)',
    );
  });

  it("rejects an empty node list", () => {
    expect(() => new VmFleet("x", { count: 1, template: 9000, nodes: [] })).toThrow(
      new VmFleetArgsError("x", [{ property: "nodes", reason: "must name at least one node" }]),
    );
  });
});
