import * as pulumi from "@pulumi/pulumi";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VmFleet } from "../../components";

const VM_TYPE = "pulumi-nodejs:dynamic/proxmox:ProxmoxVm";

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

/** The inputs of each VM child, without the serialized provider (a closure text). */
function vmInputs(): Record<string, unknown>[] {
  return registered
    .filter((r) => r.type === VM_TYPE)
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

  it("rejects least-loaded placement without node loads", () => {
    expect(
      () =>
        new VmFleet("x", { count: 1, template: 9000, nodes: ["pve1"], placement: "least-loaded" }),
    ).toThrow(new TypeError('[nodeLoads] is required when [placement] is "least-loaded"'));
  });

  it("rejects an empty node list", () => {
    expect(() => new VmFleet("x", { count: 1, template: 9000, nodes: [] })).toThrow(
      new RangeError("[nodes] must name at least one node"),
    );
  });
});
