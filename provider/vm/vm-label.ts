/**
 * How every message names a VM: `VM 13695 on pve1`, or `VM 13695` where the node is not known.
 * One form, so a user (or a log search) finds each VM's lines by one text.
 */
export function vmLabel(vmid: number, node?: string): string {
  return node === undefined ? `VM ${vmid}` : `VM ${vmid} on ${node}`;
}
