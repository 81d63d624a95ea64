import * as pulumi from "@pulumi/pulumi";
import { TEMPLATE_TYPE, VM_TYPE } from "./resource-types";

/**
 * A template exists on one cluster, and a VM is cloned on the cluster of its own provider. A
 * `ProxmoxVm` whose `template` is the `vmid` of a `CloudImageTemplate` made through another
 * provider would look for that VMID on the wrong cluster: a "not found" at best, a clone of
 * whatever holds that VMID there at worst. The program knows both providers before any call to
 * Proxmox, so the VM is refused while the program runs, in preview as in up, before it is
 * registered.
 */

/** Each CloudImageTemplate of the program, by the name it was given. */
const templateNames = new WeakMap<pulumi.Resource, string>();
/** Each explicit provider of the program, by the name it was given. */
const providerNames = new WeakMap<pulumi.ProviderResource, string>();

/** Called by CloudImageTemplate's constructor. */
export function recordTemplate(template: pulumi.CustomResource, name: string): void {
  templateNames.set(template, name);
}

/** Called by Provider's constructor. */
export function recordProvider(provider: pulumi.ProviderResource, name: string): void {
  providerNames.set(provider, name);
}

/** The resources an Output was made from (an apply or `pulumi.all` keeps them); none for a plain value. */
function sourcesOf(value: unknown): readonly pulumi.Resource[] {
  if (!pulumi.Output.isInstance(value)) return [];
  // The SDK's own record of an Output's resources: what it makes the VM depend on.
  const resources = (value as { resources?: () => Set<pulumi.Resource> }).resources;
  return typeof resources === "function" ? [...resources.call(value)] : [];
}

function describe(provider: pulumi.ProviderResource | undefined): string {
  if (provider === undefined) return "the default provider (the stack's `proxmox:*` config)";
  const name = providerNames.get(provider) ?? (provider as { __name?: string }).__name ?? "?";
  return `provider "${name}"`;
}

/**
 * The provider a resource of this package built with `opts` is made through, as the SDK finds
 * it (Resource's constructor): the `provider` option, else the parent's for the package;
 * undefined: the default provider.
 */
export function providerFor(
  opts: pulumi.CustomResourceOptions | undefined,
): pulumi.ProviderResource | undefined {
  return opts?.provider ?? opts?.parent?.getProvider(VM_TYPE);
}

/**
 * Throws, naming the VM, the template and both providers, when `template` comes from a
 * CloudImageTemplate made through another provider than the VM's (`opts`). Runs before the VM
 * is registered, so the engine never plans it.
 */
export function refuseTemplateOfOtherCluster(
  vmName: string,
  template: unknown,
  opts: pulumi.CustomResourceOptions | undefined,
): void {
  const vmProvider = providerFor(opts);
  for (const source of sourcesOf(template)) {
    const templateName = templateNames.get(source);
    if (templateName === undefined) continue;
    const templateProvider = source.getProvider(TEMPLATE_TYPE);
    if (templateProvider === vmProvider) continue;
    const same =
      templateProvider === undefined
        ? "make the VM through the default provider too (drop its `provider` option)"
        : `make the VM through ${describe(templateProvider)} too (its \`provider\` option)`;
    throw new pulumi.RunError(
      `ProxmoxVm "${vmName}" clones CloudImageTemplate "${templateName}", which is made through ` +
        `${describe(templateProvider)}, but the VM is made through ${describe(vmProvider)}: ` +
        `a template exists only on its own provider's cluster. Either ${same}, or make a ` +
        "CloudImageTemplate through the VM's provider and clone that one.",
    );
  }
}
