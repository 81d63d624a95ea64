/**
 * Components over {@link ProxmoxVm}: `pulumi-proxmox/components`.
 */
export { VmFleet, type VmFleetArgs, type VmFleetMemberArgs } from "./vm-fleet";
export { childName, hostnameFor } from "./naming";
export {
  nodeLoadsFromListing,
  placeMembers,
  type ClusterResource,
  type PlacementPolicy,
} from "./placement";
