/**
 * Per-bridge DHCP pools. A MAC keeps its lease, as a real DHCP server would hand the same
 * address back to a rebooted guest; a destroyed VM's leases go back to the pool, so a long
 * simulator lifetime with many create/destroy cycles never runs the pool dry. Leases start at
 * .100 of the pool's network and a new lease takes the lowest free address.
 */
export class IpPools {
  private readonly leases = new Map<string, string>();

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
    const taken = new Set(this.leases.values());
    for (let offset = Math.min(100, Math.floor(size / 2)); offset < size - 1; offset++) {
      const n = base + offset;
      const address = [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");
      if (taken.has(address)) continue;
      this.leases.set(key, address);
      return { address, prefix };
    }
    return undefined;
  }

  /** Gives the MAC's leases on every bridge back to the pools (the VM was destroyed). */
  release(mac: string): void {
    const suffix = `|${mac.toLowerCase()}`;
    for (const key of [...this.leases.keys()]) if (key.endsWith(suffix)) this.leases.delete(key);
  }

  toJSON(): { leases: [string, string][] } {
    return { leases: [...this.leases] };
  }

  /** Reads a saved state; the `next` counter older simulators saved is no longer needed. */
  restore(saved: { leases?: [string, string][] }): void {
    for (const [k, v] of saved.leases ?? []) this.leases.set(k, v);
  }
}
