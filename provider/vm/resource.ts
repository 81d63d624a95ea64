import * as pulumi from "@pulumi/pulumi";
import * as provider from "../dynamic-provider";
import type { ProxmoxVmArgs } from "./args";
import type { CloudInitArgs } from "./nested-args";
import { UntracedDynamicResource } from "../glue/construction-traces";
import { RESOURCE_MODULE, VM_RESOURCE } from "../glue/resource-types";
import { refuseTemplateOfOtherCluster } from "../glue/template-cluster";

export type { ProxmoxVmArgs } from "./args";
export type {
  CloudInitArgs,
  CpuArgs,
  DiskArgs,
  MemoryArgs,
  NetworkArgs,
  NicArgs,
} from "./nested-args";

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
    refuseTemplateOfOtherCluster(name, args.template, opts);
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
      RESOURCE_MODULE,
      VM_RESOURCE,
    );
  }
}
