import { describe, expect, it } from "vitest";
import { IpPools } from "../../../simulator/guest/ip-pools.js";

describe("guest/ip-pools", () => {
  it("hands a MAC the same address again, whatever its case", () => {
    const pools = new IpPools({ vmbr0: "10.10.0.0/24" });
    const first = pools.lease("vmbr0", "BC:24:11:00:00:01");
    expect(first).toEqual({ address: "10.10.0.100", prefix: 24 });
    expect(pools.lease("vmbr0", "bc:24:11:00:00:01")).toEqual(first);
  });

  it("gives a released address to the next MAC instead of running dry", () => {
    // A /28 holds offsets 8..14: seven leases.
    const pools = new IpPools({ vmbr0: "10.10.0.0/28" });
    const addresses: string[] = [];
    for (let i = 0; i < 20; i++) {
      const mac = `bc:24:11:00:00:${i.toString(16).padStart(2, "0")}`;
      const lease = pools.lease("vmbr0", mac);
      expect(lease, `lease ${i}`).toBeDefined();
      addresses.push(lease?.address ?? "");
      pools.release(mac.toUpperCase());
    }
    expect(new Set(addresses)).toEqual(new Set(["10.10.0.8"]));
  });

  it("has no address for a MAC once every address is leased", () => {
    const pools = new IpPools({ vmbr0: "10.10.0.0/29" });
    expect(pools.lease("vmbr0", "bc:24:11:00:00:01")?.address).toBe("10.10.0.4");
    expect(pools.lease("vmbr0", "bc:24:11:00:00:02")?.address).toBe("10.10.0.5");
    expect(pools.lease("vmbr0", "bc:24:11:00:00:03")?.address).toBe("10.10.0.6");
    expect(pools.lease("vmbr0", "bc:24:11:00:00:04")).toBeUndefined();
  });

  it("restores the leases it saved", () => {
    const pools = new IpPools({ vmbr0: "10.10.0.0/24" });
    pools.lease("vmbr0", "bc:24:11:00:00:01");
    const restored = new IpPools({ vmbr0: "10.10.0.0/24" });
    restored.restore(JSON.parse(JSON.stringify(pools)) as { leases: [string, string][] });
    expect(restored.lease("vmbr0", "bc:24:11:00:00:02")?.address).toBe("10.10.0.101");
    expect(restored.lease("vmbr0", "bc:24:11:00:00:01")?.address).toBe("10.10.0.100");
  });
});
