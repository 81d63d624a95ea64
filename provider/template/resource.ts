import * as pulumi from "@pulumi/pulumi";
import * as provider from "../template-provider";
import { redactUrls } from "./redact";
import { UntracedDynamicResource } from "../glue/construction-traces";

export interface CloudImageTemplateArgs {
  /** The image: an uncompressed `.qcow2`, `.img` (qcow2), `.raw` or `.vmdk` over http(s). Replaces. */
  readonly url: pulumi.Input<string>;
  /** Hex digest PVE verifies after the download; needs `checksumAlgorithm`. Replaces. */
  readonly checksum?: pulumi.Input<string>;
  /** The algorithm of `checksum`: `sha256` or `sha512`. Replaces. */
  readonly checksumAlgorithm?: pulumi.Input<"sha256" | "sha512">;
  /** The node that downloads the image and holds the template. Replaces. */
  readonly node: pulumi.Input<string>;
  /** A file storage with `import` content for the downloaded image (default `local`). Replaces. */
  readonly importStorage?: pulumi.Input<string>;
  /** The disk storage of the template (default `local-lvm`). Replaces. */
  readonly storage?: pulumi.Input<string>;
  /** The template's VM name (default: derived from the resource name). Replaces. */
  readonly name?: pulumi.Input<string>;
  /** Cores of the template, and so of its clones unless they set their own (default 1). */
  readonly cores?: pulumi.Input<number>;
  /** MiB (default 1024). */
  readonly memory?: pulumi.Input<number>;
  /** The bridge of net0 (default `vmbr0`). */
  readonly bridge?: pulumi.Input<string>;
  /** Where the template's VMID is allocated (default 10000–99999). */
  readonly vmidRange?: pulumi.Input<{ min: number; max: number }>;
  /** Budgets in milliseconds: the download task, and every other task. */
  readonly timeouts?: pulumi.Input<{ downloadMs?: number; taskMs?: number }>;
}

/**
 * A Proxmox VE template made from a cloud image over the API alone: PVE downloads the image
 * (`download-url`, checksum verified by PVE), a VM imports it as its boot disk with template
 * defaults (serial console, agent, virtio-scsi, boot from the disk), and is converted to a
 * template. Give its `vmid` to `ProxmoxVm.template`. Every input change replaces it,
 * create-before-delete; a delete is refused while linked clones of it exist.
 */
export class CloudImageTemplate extends UntracedDynamicResource {
  declare readonly vmid: pulumi.Output<number>;
  declare readonly node: pulumi.Output<string>;
  declare readonly vmName: pulumi.Output<string>;
  /** The downloaded image, e.g. `local:import/pp-tmpl-0123456789abcdef.qcow2`. */
  declare readonly imageVolid: pulumi.Output<string>;

  constructor(name: string, args: CloudImageTemplateArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      {
        vmid: undefined,
        vmName: undefined,
        imageVolid: undefined,
        disk: undefined,
        ...args,
        // A pre-signed URL's query string is a credential: a secret in the state, and shown as
        // [secret] in the engine's diff and the CLI's reports.
        url: pulumi
          .output(args.url)
          .apply((url) => (redactUrls(url) === url ? url : pulumi.secret(url))),
        // The engine does not tell a dynamic provider the URN: the identity is passed in.
        identity: { project: pulumi.getProject(), stack: pulumi.getStack(), name },
      },
      opts,
      "proxmox",
      "CloudImageTemplate",
    );
  }
}
