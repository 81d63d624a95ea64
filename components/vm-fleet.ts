import * as pulumi from "@pulumi/pulumi";
import { ProxmoxVm, type CloudInitArgs, type ProxmoxVmArgs } from "../provider/index";
import { childName, hostnameFor } from "./naming";
import { placeMembers, type PlacementPolicy } from "./placement";

/** Settings every member of a {@link VmFleet} gets; see
 * {@link provider!ProxmoxVmArgs | ProxmoxVmArgs} for each field. */
export type VmFleetMemberArgs = Pick<
  ProxmoxVmArgs,
  | "storage"
  | "isoStorage"
  | "vmidRange"
  | "cores"
  | "memory"
  | "diskSize"
  | "network"
  | "tags"
  | "description"
  | "started"
  | "waitForIp"
  | "rebootPolicy"
  | "timeouts"
>;

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
   * Cloud-init for every member. The hostname is not taken from here: each member's is derived
   * from its name (`web-0`, `web-1`, …).
   */
  readonly cloudInit?: Omit<CloudInitArgs, "hostname">;
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
    // Validated before anything registers, so a bad argument leaves no half-made component.
    const policy = args.placement ?? "round-robin";
    const roundRobin = placeMembers(args.count, args.nodes, "round-robin");
    if (policy !== "round-robin" && policy !== "least-loaded") {
      throw new TypeError(
        `[placement] must be "round-robin" or "least-loaded", got ${String(policy)}`,
      );
    }
    if (policy === "least-loaded" && args.nodeLoads === undefined) {
      throw new TypeError('[nodeLoads] is required when [placement] is "least-loaded"');
    }
    super("proxmox:index:VmFleet", name, {}, opts);

    let nodeOf: (index: number) => pulumi.Input<string> = (index) => roundRobin[index] as string;
    if (policy === "least-loaded") {
      // One decision for the whole fleet, from one set of loads.
      const placed = pulumi
        .output(args.nodeLoads ?? {})
        .apply((loads) => placeMembers(args.count, args.nodes, policy, loads));
      nodeOf = (index) => placed.apply((nodes) => nodes[index] as string);
    }

    const {
      count,
      template,
      nodes: _nodes,
      placement: _placement,
      nodeLoads: _loads,
      cloudInit,
      ...member
    } = args;
    this.vms = Array.from({ length: count }, (_, index) => {
      const vmName = childName(name, index);
      return new ProxmoxVm(
        vmName,
        {
          ...member,
          node: nodeOf(index),
          template,
          cloudInit: { ...cloudInit, hostname: hostnameFor(vmName) },
        },
        policy === "least-loaded" ? { parent: this, ignoreChanges: ["node"] } : { parent: this },
      );
    });
    this.addresses = pulumi.all(this.vms.map((vm) => vm.ipv4Addresses));
    this.nodes = pulumi.all(this.vms.map((vm) => vm.node));
    this.registerOutputs({ vms: this.vms, addresses: this.addresses, nodes: this.nodes });
  }
}
