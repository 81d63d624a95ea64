/**
 * Components over {@link provider!ProxmoxVm | ProxmoxVm}, imported from
 * `pulumi-proxmox/components`.
 *
 * @packageDocumentation
 */
export { VmFleet, type VmFleetArgs, type VmFleetMemberArgs } from "./vm-fleet";
export { childName, hostnameFor } from "./naming";
export {
  nodeLoadsFromListing,
  placeMembers,
  type ClusterResource,
  type PlacementPolicy,
} from "./placement";
