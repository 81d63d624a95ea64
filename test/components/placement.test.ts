import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nodeLoadsFromListing, placeMembers } from "../../components/placement";

describe("placement", () => {
  it("places round-robin by index, in the order of the nodes", () => {
    expect(placeMembers(5, ["pve1", "pve2"], "round-robin")).toEqual([
      "pve1",
      "pve2",
      "pve1",
      "pve2",
      "pve1",
    ]);
  });

  it("places round-robin whatever the loads say", () => {
    expect(placeMembers(2, ["pve1", "pve2"], "round-robin", { pve1: 50 })).toEqual([
      "pve1",
      "pve2",
    ]);
  });

  it("places each member least-loaded on the node with the lowest load so far", () => {
    expect(
      placeMembers(5, ["pve1", "pve2", "pve3"], "least-loaded", { pve1: 2, pve2: 0, pve3: 1 }),
    ).toEqual(["pve2", "pve2", "pve3", "pve1", "pve2"]);
  });

  it("breaks least-loaded ties by the order of the nodes and reads absent nodes as 0", () => {
    expect(placeMembers(3, ["pve2", "pve1"], "least-loaded", {})).toEqual(["pve2", "pve1", "pve2"]);
    expect(placeMembers(1, ["pve1", "pve2"], "least-loaded", { pve1: 1 })).toEqual(["pve2"]);
  });

  it("ignores loads of nodes that are not allowed", () => {
    expect(placeMembers(2, ["pve1"], "least-loaded", { pve9: 0, pve1: 7 })).toEqual([
      "pve1",
      "pve1",
    ]);
  });

  it("places nothing for a count of 0", () => {
    expect(placeMembers(0, ["pve1"], "least-loaded", {})).toEqual([]);
  });

  it("rejects a bad count, an empty or repeated node list, a bad load and an unknown policy", () => {
    expect(() => placeMembers(-1, ["pve1"], "round-robin")).toThrow(
      new RangeError("[count] must be a non-negative integer, got -1"),
    );
    expect(() => placeMembers(1, [], "round-robin")).toThrow(
      new RangeError("[nodes] must name at least one node"),
    );
    expect(() => placeMembers(1, ["pve1", "pve1"], "round-robin")).toThrow(
      new RangeError("[nodes] lists pve1 twice"),
    );
    expect(() => placeMembers(1, [""], "round-robin")).toThrow(
      new RangeError("[nodes] must not contain an empty name"),
    );
    expect(() => placeMembers(1, ["pve1"], "least-loaded", { pve1: -2 })).toThrow(
      new RangeError("[nodeLoads] of pve1 must be a finite number >= 0, got -2"),
    );
    expect(() => placeMembers(1, ["pve1"], "random" as "round-robin")).toThrow(
      new TypeError('[placement] must be "round-robin" or "least-loaded", got random'),
    );
  });

  it("keeps least-loaded totals within one member of each other from equal loads", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 1, max: 6 }), (count, n) => {
        const nodes = Array.from({ length: n }, (_, i) => `pve${i + 1}`);
        const placed = placeMembers(count, nodes, "least-loaded", {});
        const totals = nodes.map((node) => placed.filter((p) => p === node).length);
        return placed.length === count && Math.max(...totals) - Math.min(...totals) <= 1;
      }),
    );
  });

  it("counts a listing's guests per node, without templates or other resource types", () => {
    expect(
      nodeLoadsFromListing([
        { type: "qemu", node: "pve1", template: 0 },
        { type: "qemu", node: "pve1" },
        { type: "qemu", node: "pve1", template: 1 },
        { type: "lxc", node: "pve2" },
        { type: "node", node: "pve3" },
        { type: "storage", node: "pve2" },
      ]),
    ).toEqual({ pve1: 2, pve2: 1 });
  });
});
