import { describe, expect, it } from "vitest";
import { VmFleetArgsError, planFleet } from "../../components/fleet-args";

const base = { count: 3, template: 9000, nodes: ["pve1", "pve2"] };

/** The failures planFleet throws for these arguments, as `property: reason` lines. */
function failures(args: Record<string, unknown>): string[] {
  try {
    planFleet("web", args);
  } catch (error) {
    expect(error).toBeInstanceOf(VmFleetArgsError);
    return (error as VmFleetArgsError).failures.map((f) => `${f.property}: ${f.reason}`);
  }
  throw new Error("planFleet accepted the arguments");
}

describe("fleet-args", () => {
  it("plans round-robin by default, with each override under its member's index", () => {
    const plan = planFleet("web", {
      ...base,
      overrides: { 0: { cores: 4 }, "web-2": { memory: 8192 } },
    });
    expect(plan.count).toBe(3);
    expect(plan.placement).toBe("round-robin");
    expect(plan.addresses).toBeUndefined();
    expect([...plan.overrides]).toEqual([
      [0, { key: "0", args: { cores: 4 } }],
      [2, { key: "web-2", args: { memory: 8192 } }],
    ]);
  });

  it("allocates each member's address from ipv4", () => {
    const plan = planFleet("web", { ...base, ipv4: { cidr: "10.0.0.0/24", gateway: "10.0.0.1" } });
    expect(plan.addresses?.map((member) => member.address)).toEqual([
      "10.0.0.2/24",
      "10.0.0.3/24",
      "10.0.0.4/24",
    ]);
  });

  it("names every wrong property at once, as the program wrote it", () => {
    expect(
      failures({ count: 2.5, template: 9000, nodes: ["pve1", "pve1"], placement: "random" }),
    ).toEqual([
      "count: must be a non-negative integer, got 2.5",
      "nodes: lists pve1 twice",
      'placement: must be "round-robin" or "least-loaded", got random',
    ]);
  });

  it("refuses least-loaded placement without node loads, and a negative load", () => {
    expect(failures({ ...base, placement: "least-loaded" })).toEqual([
      'placement: is "least-loaded", which needs nodeLoads: each node\'s guest count from one cluster listing (nodeLoadsFromListing)',
    ]);
    expect(failures({ ...base, placement: "least-loaded", nodeLoads: { pve1: -1 } })).toEqual([
      "nodeLoads.pve1: must be a finite number >= 0, got -1",
    ]);
  });

  it("refuses a pool that cannot address the fleet, naming the pool's property", () => {
    expect(failures({ ...base, ipv4: { cidr: "10.0.0.0/30", gateway: "10.0.0.1" } })).toEqual([
      "ipv4.cidr: has room for 1 member from 10.0.0.2 to 10.0.0.2, but count is 3: choose a larger network or a lower from",
    ]);
    expect(failures({ ...base, ipv4: { cidr: "10.0.0.0/24", gateway: "10.0.0.3" } })).toEqual([
      "ipv4.gateway: is among the members' addresses 10.0.0.1 to 10.0.0.3: set from above the gateway, or move the gateway out of that range",
    ]);
    expect(failures({ ...base, ipv4: { addresses: ["10.0.0.5/24", "10.0.0.6"] } })).toEqual([
      "ipv4.addresses[1]: must be an IPv4 address with a prefix length, e.g. 10.0.0.5/24",
    ]);
  });

  it("refuses an override of no member, of a member twice, or of what the fleet sets", () => {
    expect(
      failures({
        ...base,
        overrides: { 3: {}, "db-0": {}, 1: {}, "web-1": {}, 2: { node: "pve9" } },
      }),
    ).toEqual([
      "overrides.2.node: is set by the fleet for each member and cannot be overridden",
      "overrides.3: is member 3, but count is 3 (members: web-0 to web-2): remove the override or raise count",
      "overrides.db-0: names no member: key overrides by index (0, 1, …) or by member name (members: web-0 to web-2)",
      "overrides.web-1: overrides member 1, as overrides.1 does: keep one",
    ]);
    expect(failures({ ...base, overrides: { 0: "big" } })).toEqual([
      "overrides.0: must be an object",
    ]);
  });

  it("puts the fleet's name and every failure in the error's message", () => {
    expect(() => planFleet("web", { ...base, count: -1, nodes: [] })).toThrow(
      new VmFleetArgsError("web", [
        { property: "count", reason: "must be a non-negative integer, got -1" },
        { property: "nodes", reason: "must name at least one node" },
      ]),
    );
    expect(() => planFleet("web", { ...base, nodes: [] })).toThrow(
      "VmFleet web: nodes: must name at least one node",
    );
  });
});
