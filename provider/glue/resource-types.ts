/**
 * The type of each resource of the package as the engine records it in a state:
 * `pulumi-nodejs:dynamic/<module>:<name>`, the dynamic-resource SDK's form. States name their
 * resources by these, and the CLI finds a stack's VMs and templates by them: they never change.
 */
export const RESOURCE_MODULE = "proxmox";

export const VM_RESOURCE = "ProxmoxVm";
export const TEMPLATE_RESOURCE = "CloudImageTemplate";
export const VM_SNAPSHOT_RESOURCE = "VmSnapshot";
/** The probe resource of `pulumi-proxmox/testing`. */
export const ENGINE_CHECK_RESOURCE = "EngineCheck";

/** The type the engine records for the package's resource called `name`. */
function resourceType(name: string): string {
  return `pulumi-nodejs:dynamic/${RESOURCE_MODULE}:${name}`;
}

export const VM_TYPE = resourceType(VM_RESOURCE);
export const TEMPLATE_TYPE = resourceType(TEMPLATE_RESOURCE);
export const VM_SNAPSHOT_TYPE = resourceType(VM_SNAPSHOT_RESOURCE);
export const ENGINE_CHECK_TYPE = resourceType(ENGINE_CHECK_RESOURCE);
