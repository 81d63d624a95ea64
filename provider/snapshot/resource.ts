import * as pulumi from "@pulumi/pulumi";
import * as provider from "../snapshot-provider";
import { UntracedDynamicResource } from "../glue/construction-traces";
import { RESOURCE_MODULE, VM_SNAPSHOT_RESOURCE } from "../glue/resource-types";

/** The VM a snapshot is of: a `ProxmoxVm`, or any VM by its VMID and node. */
export interface SnapshotVmArgs {
  readonly vmid: pulumi.Input<number>;
  readonly node: pulumi.Input<string>;
}

export interface VmSnapshotArgs {
  /** The VM: a `ProxmoxVm` (its `vmid` and `node`), or `{ vmid, node }`. Replaces. */
  readonly vm: SnapshotVmArgs;
  /**
   * The snapshot's name in PVE (a letter, then letters, digits, `_` or `-`; 2–40 characters).
   * Default: the resource's name made to fit those rules. Replaces.
   */
  readonly name?: pulumi.Input<string>;
  /** Shown in PVE's snapshot list; changed in place. */
  readonly description?: pulumi.Input<string>;
  /**
   * Save a running VM's RAM too (PVE's `vmstate`): a rollback then resumes the VM where it was.
   * Costs a state volume about twice the VM's memory and a pause while it is written (default
   * false). Replaces.
   */
  readonly includeRam?: pulumi.Input<boolean>;
}

/**
 * A snapshot of a VM: PVE's disks and config as they are when it is created. The description
 * changes in place; anything else takes a new snapshot (the old one is deleted first). Deleting
 * the resource deletes the snapshot; one already gone (by hand, or with its VM) is fine.
 * `pulumi-proxmox rollback` rolls a VM back to one.
 */
export class VmSnapshot extends UntracedDynamicResource {
  declare readonly vmid: pulumi.Output<number>;
  /** The node the VM was on when last read. */
  declare readonly node: pulumi.Output<string>;
  /** The name PVE knows the snapshot by. */
  declare readonly snapshotName: pulumi.Output<string>;
  /** UNIX seconds when PVE took it. */
  declare readonly snaptime: pulumi.Output<number>;
  /** Whether it holds the RAM (only a running VM's is saved). */
  declare readonly vmstate: pulumi.Output<boolean>;
  /** UNIX seconds of the last rollback to it made outside this resource, as refresh saw it. */
  declare readonly rolledBackAt: pulumi.Output<number | undefined>;

  constructor(name: string, args: VmSnapshotArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      {
        snapshotName: undefined,
        snaptime: undefined,
        vmstate: undefined,
        rolledBackAt: undefined,
        name: args.name,
        description: args.description,
        includeRam: args.includeRam,
        vmid: args.vm.vmid,
        node: args.vm.node,
        // The engine does not tell a dynamic provider the resource's name: it is passed in.
        resourceName: name,
      },
      opts,
      RESOURCE_MODULE,
      VM_SNAPSHOT_RESOURCE,
    );
  }
}
