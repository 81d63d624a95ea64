import * as pulumi from "@pulumi/pulumi";
import * as provider from "../dynamic-provider";
import type { ArgOf } from "./spec/derive";
import { UntracedDynamicResource } from "../glue/construction-traces";

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
  /** `"dhcp"` (default) or a static address with prefix, e.g. `{ address: "10.0.0.5/24", gateway: "10.0.0.1" }`. */
  readonly ipv4?: pulumi.Input<"dhcp" | { address: string; gateway?: string }>;
  readonly ipv6?: pulumi.Input<"dhcp" | "auto" | { address: string; gateway?: string }>;
}

/**
 * The inputs. Each member's type and doc comment come from the spec (provider/vm/spec/fields.ts): a
 * test fails when they disagree, or when a member is missing or extra.
 */
export interface ProxmoxVmArgs {
  /** The node the VM is placed on. Changing it replaces the VM. */
  readonly node: pulumi.Input<ArgOf<"node">>;
  /** The template to clone, by VMID or by name. Changing it replaces the VM. */
  readonly template: pulumi.Input<ArgOf<"template">>;
  /** Disk storage for the full clone (default: the template's). Changing it replaces the VM. */
  readonly storage?: pulumi.Input<ArgOf<"storage">>;
  /** Storage for the cloud-init seed ISO (default `local`). Changing it replaces the VM. */
  readonly isoStorage?: pulumi.Input<ArgOf<"isoStorage">>;
  /** Pin the VM name (default: derived from the resource name). Replaces delete-first. */
  readonly name?: pulumi.Input<ArgOf<"name">>;
  /** Pin the VMID (default: allocated from `vmidRange`). Replaces delete-first. */
  readonly vmid?: pulumi.Input<ArgOf<"vmid">>;
  /** Where VMIDs are allocated (default 10000–99999). */
  readonly vmidRange?: pulumi.Input<ArgOf<"vmidRange">>;
  /**
   * Virtual CPU cores, the shorthand of `cpu.cores` (set one of the two). A running VM takes the
   * change at its next reboot.
   */
  readonly cores?: pulumi.Input<ArgOf<"cores">>;
  /**
   * MiB, or `{ sizeMiB, balloonMiB, shares, hugepages }`. A running VM takes a new size at its
   * next reboot, unless `hotplug` has `memory` and `cpu.numa` is on; balloon and shares apply at
   * once.
   */
  readonly memory?: pulumi.Input<ArgOf<"memory">>;
  /** GiB of the boot disk; can only grow. */
  readonly diskSize?: pulumi.Input<ArgOf<"diskSize">>;
  /**
   * The VM's disks, the boot disk included (by its slot, e.g. `scsi0`): a disk the VM lacks is
   * added, a larger `sizeGiB` grows it, another `storage` moves it; `remove: true` detaches it.
   * Instead of `diskSize`, not with it.
   */
  readonly disks?: pulumi.Input<ArgOf<"disks">>;
  /** The VM's NIC (net0) and the address its seed configures; the one-NIC form of `networks`. */
  readonly network?: pulumi.Input<NetworkArgs>;
  /**
   * The VM's NICs in order (net0, net1…), each with the address its seed configures, matched by
   * MAC. NICs beyond the list are removed; a NIC added to a running VM is hot-plugged.
   */
  readonly networks?: pulumi.Input<NicArgs[]>;
  /** DNS servers the seed configures (on the first NIC). With `network`, set them there. */
  readonly nameservers?: pulumi.Input<ArgOf<"nameservers">>;
  /** DNS search domains the seed configures (on the first NIC). With `network`, set them there. */
  readonly searchDomains?: pulumi.Input<ArgOf<"searchDomains">>;
  /** Cloud-init for the VM's NoCloud seed. A running VM reboots onto a changed seed. */
  readonly cloudInit?: pulumi.Input<CloudInitArgs>;
  /** Compared the way PVE stores them: lower-case, sorted, unique. */
  readonly tags?: pulumi.Input<ArgOf<"tags">>;
  /** The VM's notes in PVE; the provider appends its own mark below them. */
  readonly description?: pulumi.Input<ArgOf<"description">>;
  /**
   * Firmware: `seabios` or `ovmf` (UEFI, which needs `efiDisk`). A running VM takes it at its next
   * reboot.
   */
  readonly bios?: pulumi.Input<ArgOf<"bios">>;
  /**
   * The EFI vars disk (efidisk0) for `bios: ovmf`. Added at the next reboot; cannot be changed
   * once created.
   */
  readonly efiDisk?: pulumi.Input<ArgOf<"efiDisk">>;
  /**
   * A TPM state disk (tpmstate0), v2.0 by default. Added at the next reboot; cannot be changed
   * once created.
   */
  readonly tpm?: pulumi.Input<ArgOf<"tpm">>;
  /**
   * Machine type: `q35` or `pc` (i440fx), optionally pinned, e.g. `pc-q35-8.1`. A running VM takes
   * it at its next reboot.
   */
  readonly machine?: pulumi.Input<ArgOf<"machine">>;
  /** The SCSI controller, e.g. `virtio-scsi-single`. A running VM takes it at its next reboot. */
  readonly scsihw?: pulumi.Input<ArgOf<"scsihw">>;
  /**
   * The display, e.g. `std`, `virtio`, or `serial0` for cloud images. A running VM takes it at its
   * next reboot.
   */
  readonly vga?: pulumi.Input<ArgOf<"vga">>;
  /**
   * The first serial port (serial0): `socket`, which cloud images log to, or a host device such as
   * `/dev/ttyS0`.
   */
  readonly serial?: pulumi.Input<ArgOf<"serial">>;
  /** Boot order, e.g. `["scsi0", "net0"]`. A running VM takes it at its next reboot. */
  readonly boot?: pulumi.Input<ArgOf<"boot">>;
  /**
   * Guest agent options; the agent itself is always on, since the VM's addresses are read through
   * it. A running VM takes a change at its next reboot.
   */
  readonly agent?: pulumi.Input<ArgOf<"agent">>;
  /**
   * `{ full: false }` clones linked to the template's disks (its storage must allow it; no
   * `storage`). Default a full copy. Changing it replaces the VM.
   */
  readonly clone?: pulumi.Input<ArgOf<"clone">>;
  /** Whether the VM runs (default true). */
  readonly started?: pulumi.Input<ArgOf<"started">>;
  /** Wait for the guest agent to report an IPv4 address (default true). */
  readonly waitForIp?: pulumi.Input<ArgOf<"waitForIp">>;
  /** Whether an update may reboot a running VM to apply a change (default `allow`). */
  readonly rebootPolicy?: pulumi.Input<ArgOf<"rebootPolicy">>;
  /**
   * A VM found on another node than `node` (an HA move, a manual migration) is drift. With
   * `moveBack` (default) `up` migrates it back, live when it runs; with `accept` the move is
   * accepted and not reported. Never a replacement.
   */
  readonly nodeDrift?: pulumi.Input<ArgOf<"nodeDrift">>;
  /** Take over a complete VM that carries this resource's identity but is unknown to the stack. */
  readonly adopt?: pulumi.Input<ArgOf<"adopt">>;
  /** Budgets in milliseconds: the clone task, the guest agent's address, any other task. */
  readonly timeouts?: pulumi.Input<ArgOf<"timeouts">>;
  /**
   * `{ type, flags, sockets, cores, vcpus, numa, units, limit }`; set `cores` here or as the
   * `cores` shorthand, not both. A running VM takes a change at its next reboot, except `vcpus`
   * (with `cpu` in `hotplug`), `units` and `limit`, which apply at once.
   */
  readonly cpu?: pulumi.Input<ArgOf<"cpu">>;
  /**
   * The features PVE hot-plugs into a running VM: `network`, `disk`, `cpu`, `memory`, `usb`,
   * `cloudinit`; `[]` for none. Unset, the VM keeps its template's (PVE's default
   * `network,disk,usb`).
   */
  readonly hotplug?: pulumi.Input<ArgOf<"hotplug">>;
  /** Whether PVE starts the VM when its node boots. */
  readonly onBoot?: pulumi.Input<ArgOf<"onBoot">>;
  /**
   * `{ order, up, down }`: the start position at node boot and the seconds to wait after start
   * and for shutdown.
   */
  readonly startup?: pulumi.Input<ArgOf<"startup">>;
  /** Whether PVE refuses to remove the VM or its disks. `pulumi destroy` turns it off first. */
  readonly protection?: pulumi.Input<ArgOf<"protection">>;
  /**
   * The resource pool the VM belongs to; the pool must exist. The clone joins it, a change moves
   * the VM to the new pool, and removing the input takes the VM out of it.
   */
  readonly pool?: pulumi.Input<ArgOf<"pool">>;
}

/** `cpu`: the model, topology, NUMA and scheduler weights of the VM's CPUs. */
export type CpuArgs = ArgOf<"cpu">;
/** `memory` in its full form; a plain number is the size in MiB. */
export type MemoryArgs = Exclude<ArgOf<"memory">, number>;

/** The `cloudInit` keys that may carry passwords, keys or tokens: secret by default. */
const SECRET_CLOUD_INIT_KEYS = ["users", "writeFiles", "userData"] as const;

/**
 * `cloudInit` with its secret-bearing keys wrapped in `pulumi.secret`. The engine then keeps them
 * encrypted in the state's inputs, and marks the same keys secret in the outputs, recursively,
 * because the provider echoes its inputs (it declares it cannot take secrets, so it sees them in
 * plain text). Only those keys are wrapped, so `hostname` or `packages` stay readable in diffs. A
 * `cloudInit` that is itself an Output is wrapped whole: its keys are not known here.
 */
function secretCloudInit(
  cloudInit: ProxmoxVmArgs["cloudInit"],
): pulumi.Input<CloudInitArgs> | undefined {
  if (cloudInit === undefined) return undefined;
  if (pulumi.Output.isInstance(cloudInit) || cloudInit instanceof Promise) {
    return pulumi.secret(cloudInit);
  }
  const wrapped: Record<string, unknown> = { ...cloudInit };
  for (const key of SECRET_CLOUD_INIT_KEYS) {
    if (wrapped[key] !== undefined) wrapped[key] = pulumi.secret(wrapped[key]);
  }
  return wrapped as CloudInitArgs;
}

/**
 * A Proxmox VE virtual machine cloned from a template, seeded with cloud-init over the API
 * alone (a NoCloud ISO), started and watched until its guest agent reports an address.
 *
 * Credentials come from stack config (`proxmox:endpoint`, `proxmox:apiToken` as a secret,
 * `proxmox:caCert`, `proxmox:insecure`) or the environment (`PROXMOX_VE_ENDPOINT`,
 * `PROXMOX_VE_API_TOKEN`, `PROXMOX_VE_INSECURE`); never from resource inputs.
 */
export class ProxmoxVm extends UntracedDynamicResource {
  declare readonly vmid: pulumi.Output<number>;
  /** The node the VM was placed on (the placement input). */
  declare readonly node: pulumi.Output<string>;
  /** Where the VM runs now: differs from `node` after an HA move or a migration. */
  declare readonly currentNode: pulumi.Output<string>;
  declare readonly vmName: pulumi.Output<string>;
  declare readonly status: pulumi.Output<string>;
  declare readonly started: pulumi.Output<boolean>;
  declare readonly macAddress: pulumi.Output<string | undefined>;
  declare readonly ipv4Addresses: pulumi.Output<string[]>;
  declare readonly ipv6Addresses: pulumi.Output<string[]>;
  /** The NoCloud seed ISO, e.g. `local:iso/pp-….iso`. */
  declare readonly seedVolid: pulumi.Output<string | undefined>;
  /** The config keys PVE holds for the VM's next reboot (e.g. `cores` with `rebootPolicy: "never"`). */
  declare readonly pendingChanges: pulumi.Output<string[]>;

  constructor(name: string, args: ProxmoxVmArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      {
        vmid: undefined,
        currentNode: undefined,
        vmName: undefined,
        status: undefined,
        started: undefined,
        macAddress: undefined,
        ipv4Addresses: undefined,
        ipv6Addresses: undefined,
        seedVolid: undefined,
        pendingChanges: undefined,
        ...args,
        cloudInit: secretCloudInit(args.cloudInit),
        // The engine does not tell a dynamic provider the URN: the identity is passed in.
        identity: { project: pulumi.getProject(), stack: pulumi.getStack(), name },
      },
      opts,
      "proxmox",
      "ProxmoxVm",
    );
  }
}
