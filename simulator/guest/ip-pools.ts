/**
 * Per-bridge DHCP pools. A MAC keeps its lease, as a real DHCP server would hand the same
 * address back to a rebooted guest. Leases start at .100 of the pool's network.
 */
export class IpPools {
  private readonly leases = new Map<string, string>();
  private readonly next = new Map<string, number>();

  constructor(private readonly bridges: Readonly<Record<string, string>>) {}

  /** `{ address, prefix }` for the MAC on the bridge, or undefined when the bridge has no pool. */
  lease(bridge: string, mac: string): { address: string; prefix: number } | undefined {
    const cidr = this.bridges[bridge];
    if (cidr === undefined) return undefined;
    const [network = "0.0.0.0", bits = "24"] = cidr.split("/");
    const prefix = Number(bits);
    const key = `${bridge}|${mac.toLowerCase()}`;
    const existing = this.leases.get(key);
    if (existing !== undefined) return { address: existing, prefix };
    const base = network.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);
    const size = 2 ** (32 - prefix);
    const offset = this.next.get(bridge) ?? Math.min(100, Math.floor(size / 2));
    if (offset >= size - 1) return undefined;
    this.next.set(bridge, offset + 1);
    const n = base + offset;
    const address = [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");
    this.leases.set(key, address);
    return { address, prefix };
  }

  toJSON(): { leases: [string, string][]; next: [string, number][] } {
    return { leases: [...this.leases], next: [...this.next] };
  }

  restore(saved: { leases?: [string, string][]; next?: [string, number][] }): void {
    for (const [k, v] of saved.leases ?? []) this.leases.set(k, v);
    for (const [k, v] of saved.next ?? []) this.next.set(k, v);
  }
}
