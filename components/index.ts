/**
 * Components over {@link provider!ProxmoxVm | ProxmoxVm}, imported from
 * `pulumi-proxmox/components`.
 *
 * @packageDocumentation
 */
export { VmFleet, type VmFleetArgs, type VmFleetMemberArgs } from "./vm-fleet";
export { VmFleetArgsError } from "./fleet-args";
export type { Ipv4Pool } from "./ipv4-pool";
export { childName, hostnameFor } from "./naming";
export {
  nodeLoadsFromListing,
  placeMembers,
  type ClusterResource,
  type PlacementPolicy,
} from "./placement";
