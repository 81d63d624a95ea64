import * as pulumi from "@pulumi/pulumi";
import * as provider from "../template-provider";
import type { CloudImageTemplateArgs } from "./args";
import { redactUrls } from "./redact";
import { UntracedDynamicResource } from "../glue/construction-traces";
import { RESOURCE_MODULE, TEMPLATE_RESOURCE } from "../glue/resource-types";
import { recordTemplate } from "../glue/template-cluster";

export type { CloudImageTemplateArgs } from "./args";

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
      RESOURCE_MODULE,
      TEMPLATE_RESOURCE,
    );
    recordTemplate(this, name);
  }
}
