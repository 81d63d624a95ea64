/**
 * Which of the addresses the guest agent lists are the VM's own: those on the interfaces whose
 * hardware address is one of its NICs' MACs, without loopback and link-local ones. A guest that runs
 * Docker, Weave or libvirt lists bridges with their own MACs (often before eth0), and a NIC
 * keeps 169.254/16 and fe80:: addresses that nobody outside the link can reach. One rule, used
 * by the outputs (`ipv4Addresses`, `ipv6Addresses`) and by the wait for an address.
 */
import type { GuestInterface } from "../../pve/api/proxmox-api";

export interface GuestAddresses {
  readonly v4: string[];
  readonly v6: string[];
}

/** `BC:24:11:AA:BB:CC`, `bc-24-11-aa-bb-cc` → `bc2411aabbcc`. */
function macKey(mac: string): string {
  return mac.toLowerCase().replace(/[^0-9a-f]/g, "");
}

/** 127/8, 169.254/16, ::1 and fe80::/10: addresses that do not reach the VM from outside. */
export function isLoopbackOrLinkLocal(address: string, type: "ipv4" | "ipv6"): boolean {
  if (type === "ipv4") return address.startsWith("127.") || address.startsWith("169.254.");
  const lower = address.toLowerCase();
  return lower === "::1" || /^fe[89ab][0-9a-f]:/.test(lower);
}

/**
 * The VM's own routable addresses: NIC by NIC in the order of `macs` (net0's first), each in the
 * order the agent lists them. With no MAC there is no NIC of the VM's own, so nothing counts.
 */
export function ownAddresses(
  interfaces: readonly GuestInterface[],
  macs: readonly string[],
): GuestAddresses {
  const v4: string[] = [];
  const v6: string[] = [];
  for (const own of macs.map(macKey).filter((key) => key !== "")) {
    for (const nic of interfaces) {
      if (nic.hardwareAddress === undefined || macKey(nic.hardwareAddress) !== own) continue;
      for (const { address, type } of nic.ipAddresses) {
        if (isLoopbackOrLinkLocal(address, type)) continue;
        const list = type === "ipv4" ? v4 : v6;
        if (!list.includes(address)) list.push(address);
      }
    }
  }
  return { v4, v6 };
}
