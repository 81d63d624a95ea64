/**
 * The nested inputs of a `ProxmoxVm` whose members are documented one by one, so an editor shows
 * each member's doc; `ProxmoxVmArgs` (generated from the spec) names them, and the spec's test
 * holds each to the schema `check` parses.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ArgOf } from "./spec/derive";

/** Cloud-init for the VM's NoCloud seed; see docs/cloud-init.md. */
export interface CloudInitArgs {
  /** Host name; defaults to the VM name. */
  readonly hostname?: pulumi.Input<string>;
  readonly users?: pulumi.Input<
    readonly {
      readonly name: string;
      readonly sshAuthorizedKeys?: readonly string[];
      /** `true`: passwordless sudo for everything; a string is one sudoers rule, as written. */
      readonly sudo?: boolean | string;
      readonly groups?: readonly string[];
      readonly shell?: string;
      readonly lockPassword?: boolean;
      readonly hashedPassword?: string;
    }[]
  >;
  /** Keys for the distribution's default user. */
  readonly sshAuthorizedKeys?: pulumi.Input<readonly string[]>;
  readonly packages?: pulumi.Input<readonly string[]>;
  readonly runcmd?: pulumi.Input<readonly (string | readonly string[])[]>;
  readonly writeFiles?: pulumi.Input<
    readonly { path: string; content: string; permissions?: string; owner?: string }[]
  >;
  /** Your own user-data, passed through; validated when it starts with `#cloud-config`. */
  readonly userData?: pulumi.Input<string>;
}

export interface NetworkArgs {
  /** Default `vmbr0`. */
  readonly bridge?: pulumi.Input<string>;
  readonly vlan?: pulumi.Input<number>;
  /** Pin the MAC; by default the clone's generated MAC is kept. */
  readonly mac?: pulumi.Input<string>;
  /** Default `virtio`. */
  readonly model?: pulumi.Input<"virtio" | "e1000" | "rtl8139" | "vmxnet3">;
  /** `"dhcp"` (default) or a static address with prefix, e.g. `{ address: "10.0.0.5/24", gateway: "10.0.0.1" }`. */
  readonly ipv4?: pulumi.Input<"dhcp" | { address: string; gateway?: string }>;
  readonly ipv6?: pulumi.Input<"dhcp" | "auto" | { address: string; gateway?: string }>;
  readonly nameservers?: pulumi.Input<readonly string[]>;
  readonly searchDomains?: pulumi.Input<readonly string[]>;
}

/** One entry of `disks`: a disk slot, its size and storage, and the options the program sets. */
export type DiskArgs = ArgOf<"disks">[number];

/** One NIC of `networks`: PVE's device options and the address its seed configures. */
export interface NicArgs {
  /** Default `vmbr0`. */
  readonly bridge?: pulumi.Input<string>;
  readonly vlan?: pulumi.Input<number>;
  /** Pin the MAC; by default the one PVE generated for the NIC is kept. */
  readonly mac?: pulumi.Input<string>;
  /** Default `virtio`. */
  readonly model?: pulumi.Input<"virtio" | "e1000" | "rtl8139" | "vmxnet3">;
  /** PVE's firewall on this NIC (default: PVE's, off). */
  readonly firewall?: pulumi.Input<boolean>;
  /** Virtio only: 1 to 65520, 1 meaning the bridge's MTU. */
  readonly mtu?: pulumi.Input<number>;
  /** Rate limit in MB/s. */
  readonly rate?: pulumi.Input<number>;
  /** Packet queues, 1 to 64 (multiqueue virtio). */
  readonly queues?: pulumi.Input<number>;
  /** VLANs the NIC passes tagged (PVE's `trunks`), 1 to 4094; a running VM takes a change at once. */
  readonly trunks?: pulumi.Input<pulumi.Input<number>[]>;
  /** Unplug the cable (PVE's `link_down`): the guest sees no link. A running VM takes it at once. */
  readonly linkDown?: pulumi.Input<boolean>;
  /** `"dhcp"` (default) or a static address with prefix, e.g. `{ address: "10.0.0.5/24", gateway: "10.0.0.1" }`. */
  readonly ipv4?: pulumi.Input<"dhcp" | { address: string; gateway?: string }>;
  readonly ipv6?: pulumi.Input<"dhcp" | "auto" | { address: string; gateway?: string }>;
}

/** `cpu`: the model, topology, NUMA and scheduler weights of the VM's CPUs. */
export type CpuArgs = ArgOf<"cpu">;
/** `memory` in its full form; a plain number is the size in MiB. */
export type MemoryArgs = Exclude<ArgOf<"memory">, number>;
