import * as pulumi from "@pulumi/pulumi";
import { ProxmoxVm } from "../provider/index";
import { planFleet } from "./fleet-args";
import type { Ipv4Pool } from "./ipv4-pool";
import { memberArgs, type VmFleetMemberArgs } from "./member-args";
import { childName, hostnameFor } from "./naming";
import { placeMembers, type PlacementPolicy } from "./placement";

export type { VmFleetMemberArgs } from "./member-args";

export interface VmFleetArgs extends VmFleetMemberArgs {
  /**
   * How many VMs. Members are numbered 0 to `count - 1`; lowering the count deletes the
   * highest-numbered members, raising it adds new ones and leaves the others alone.
   */
  readonly count: number;
  /** The template every member is cloned from, by VMID or by name. */
  readonly template: pulumi.Input<number | string>;
  /** The nodes the members may be placed on, in order of preference for ties. */
  readonly nodes: readonly string[];
  /** How members are spread over `nodes` (default `"round-robin"`); see {@link PlacementPolicy}. */
  readonly placement?: PlacementPolicy;
  /**
   * Required by `"least-loaded"`: each node's load (guest count) from ONE cluster listing,
   * e.g. `nodeLoadsFromListing(await listing())`. Nodes absent count as 0.
   *
   * Least-loaded placement is sticky: a member keeps the node it was created on when the
   * loads change later (its `node` input is ignored on update), so a new listing only decides
   * where new members go.
   */
  readonly nodeLoads?: pulumi.Input<Record<string, number>>;
  /**
   * Static IPv4 addresses for the members' first NIC (net0), IPv4 only: member `i` gets the
   * pool's address number `i`, so it keeps its address when the fleet grows or shrinks.
   *
   * - `{ cidr: "10.0.0.0/24", gateway: "10.0.0.1", from: "10.0.0.10" }`: consecutive addresses
   *   from `from` (default: the network's first host, or the one after it when that is the
   *   gateway), with the CIDR's prefix length.
   * - `{ addresses: ["10.0.0.5/24", "10.0.0.9/24"], gateway: "10.0.0.1" }`: member `i` gets
   *   `addresses[i]`.
   *
   * A pool too small for `count`, or whose members' range holds the gateway, is refused before
   * anything is created. The first NIC's `ipv4` must then be left out (or `"dhcp"`); the other
   * NICs keep theirs.
   */
  readonly ipv4?: Ipv4Pool;
  /**
   * Settings of single members, keyed by index (`2`) or by member name (`"web-2"`), so adding
   * members never renumbers an override. Each top-level field replaces the fleet's whole: an
   * override's `networks` is the member's whole NIC list, its `cloudInit` the member's whole
   * cloud-init (the hostname stays the member's name). A key naming no member of the fleet (at or
   * above `count`) is refused.
   */
  readonly overrides?: Readonly<Record<number | string, Partial<VmFleetMemberArgs>>>;
}

/**
 * N Proxmox VMs cloned from one template and spread over a set of nodes by a stated policy.
 *
 * Member `i` is the {@link provider!ProxmoxVm | ProxmoxVm} child named `${name}-${i}` (its URN, VM name and cloud-init
 * hostname derive from it), so identities are stable across runs and a member's VM is never
 * swapped with another's.
 *
 * ```ts
 * const web = new VmFleet("web", { count: 3, template: "debian-12-cloud", nodes: ["pve1", "pve2"] });
 * export const addresses = web.addresses;
 * ```
 */
export class VmFleet extends pulumi.ComponentResource {
  /** The members, index by index. */
  readonly vms: ProxmoxVm[];
  /** Each member's IPv4 addresses, index by index, as reported by its guest agent. */
  readonly addresses: pulumi.Output<string[][]>;
  /** Each member's node (where it was placed), index by index. */
  readonly nodes: pulumi.Output<string[]>;

  constructor(name: string, args: VmFleetArgs, opts?: pulumi.ComponentResourceOptions) {
    // Checked and merged before anything registers, so a bad argument leaves no half-made
    // component.
    const plan = planFleet(name, args as unknown as Record<string, unknown>);
    const {
      count: _count,
      template,
      nodes,
      placement: _placement,
      nodeLoads,
      ipv4: _ipv4,
      overrides: _overrides,
      ...settings
    } = args;
    const members = Array.from({ length: plan.count }, (_, index) =>
      memberArgs(name, settings, plan.overrides.get(index), plan.addresses?.[index]),
    );
    super("proxmox:index:VmFleet", name, {}, opts);

    const leastLoaded = plan.placement === "least-loaded";
    const roundRobin = placeMembers(plan.count, nodes, "round-robin");
    let nodeOf: (index: number) => pulumi.Input<string> = (index) => roundRobin[index] as string;
    if (leastLoaded) {
      // One decision for the whole fleet, from one set of loads.
      const placed = pulumi
        .output(nodeLoads ?? {})
        .apply((loads) => placeMembers(plan.count, nodes, "least-loaded", loads));
      nodeOf = (index) => placed.apply((placement) => placement[index] as string);
    }

    this.vms = members.map((member, index) => {
      const vmName = childName(name, index);
      return new ProxmoxVm(
        vmName,
        {
          ...member,
          node: nodeOf(index),
          template,
          cloudInit: { ...member.cloudInit, hostname: hostnameFor(vmName) },
        },
        leastLoaded ? { parent: this, ignoreChanges: ["node"] } : { parent: this },
      );
    });
    this.addresses = pulumi.all(this.vms.map((vm) => vm.ipv4Addresses));
    this.nodes = pulumi.all(this.vms.map((vm) => vm.node));
    this.registerOutputs({ vms: this.vms, addresses: this.addresses, nodes: this.nodes });
  }
}
