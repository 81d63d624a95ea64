/** Where a VM is: the node PVE runs it on and its VMID. */
export interface VmLocation {
  readonly node: string;
  readonly vmid: number;
}
