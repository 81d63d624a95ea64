/**
 * pulumi-proxmox: manage Proxmox VE virtual machines from Pulumi.
 *
 * Note for maintainers: Pulumi's closure serializer finds this package's root by resolving the
 * bare name `pulumi-proxmox`, so the "." export must always resolve to a real file.
 */
export {
  ProxmoxVm,
  type CloudInitArgs,
  type CpuArgs,
  type MemoryArgs,
  type DiskArgs,
  type NetworkArgs,
  type ProxmoxVmArgs,
} from "./vm/resource";
export { CloudImageTemplate, type CloudImageTemplateArgs } from "./template/resource";
export { VmSnapshot, type SnapshotVmArgs, type VmSnapshotArgs } from "./snapshot/resource";
export { Provider, type ProviderArgs } from "./glue/provider-resource";
export {
  ERROR_CODES,
  PermanentError,
  ProxmoxError,
  TransientError,
  hasCode,
  isPermanent,
  isProxmoxError,
  isTransient,
  type ErrorCode,
  type ErrorContext,
} from "./pve/errors";
