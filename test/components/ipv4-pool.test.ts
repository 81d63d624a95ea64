import { describe, expect, it } from "vitest";
import { allocateIpv4, ipv4PoolSchema, type Ipv4Pool } from "../../components/ipv4-pool";

const allocate = (pool: Ipv4Pool, count: number) => allocateIpv4(ipv4PoolSchema.parse(pool), count);
const addressesOf = (pool: Ipv4Pool, count: number) => {
  const allocated = allocate(pool, count);
  if (!Array.isArray(allocated)) throw new Error(allocated.message);
  return allocated.map((member) => member.address);
};

describe("ipv4-pool", () => {
  it("allocates consecutive addresses after a gateway on the network's first host", () => {
    expect(allocate({ cidr: "10.0.0.0/24", gateway: "10.0.0.1" }, 3)).toEqual([
      { address: "10.0.0.2/24", gateway: "10.0.0.1" },
      { address: "10.0.0.3/24", gateway: "10.0.0.1" },
      { address: "10.0.0.4/24", gateway: "10.0.0.1" },
    ]);
  });

  it("starts at the network's first host when the gateway is elsewhere or absent", () => {
    expect(addressesOf({ cidr: "192.168.8.0/22", gateway: "192.168.11.254" }, 2)).toEqual([
      "192.168.8.1/22",
      "192.168.8.2/22",
    ]);
    expect(allocate({ cidr: "10.1.0.0/16" }, 1)).toEqual([{ address: "10.1.0.1/16" }]);
  });

  it("starts at from and counts across octets", () => {
    expect(addressesOf({ cidr: "10.0.0.0/23", from: "10.0.0.254" }, 3)).toEqual([
      "10.0.0.254/23",
      "10.0.0.255/23",
      "10.0.1.0/23",
    ]);
  });

  it("gives member i the same address whatever the count", () => {
    const pool = { cidr: "10.0.0.0/24", gateway: "10.0.0.1", from: "10.0.0.50" };
    const three = addressesOf(pool, 3);
    expect(addressesOf(pool, 5).slice(0, 3)).toEqual(three);
    expect(addressesOf(pool, 2)).toEqual(three.slice(0, 2));
  });

  it("gives member i the list's address i", () => {
    expect(
      allocate(
        { addresses: ["10.0.0.9/24", "10.0.0.5/24", "10.0.0.7/24"], gateway: "10.0.0.1" },
        2,
      ),
    ).toEqual([
      { address: "10.0.0.9/24", gateway: "10.0.0.1" },
      { address: "10.0.0.5/24", gateway: "10.0.0.1" },
    ]);
  });

  it("refuses a network too small for the count, naming where the range starts", () => {
    expect(allocate({ cidr: "10.0.0.0/29", gateway: "10.0.0.1" }, 6)).toEqual({
      path: ["cidr"],
      message:
        "has room for 5 members from 10.0.0.2 to 10.0.0.6, but count is 6: choose a larger network or a lower from",
    });
    expect(allocate({ cidr: "10.0.0.0/24", from: "10.0.0.250" }, 6)).toMatchObject({
      path: ["from"],
      message: expect.stringContaining("has room for 5 members from 10.0.0.250 to 10.0.0.254"),
    });
    // A /31 or /32 has no host besides network and broadcast.
    expect(allocate({ cidr: "10.0.0.0/31" }, 1)).toMatchObject({ path: ["cidr"] });
  });

  it("refuses a gateway among the members' addresses or outside the network", () => {
    expect(allocate({ cidr: "10.0.0.0/24", gateway: "10.0.0.4", from: "10.0.0.2" }, 3)).toEqual({
      path: ["gateway"],
      message:
        "is among the members' addresses 10.0.0.2 to 10.0.0.4: set from above the gateway, or move the gateway out of that range",
    });
    expect(allocate({ cidr: "10.0.0.0/24", gateway: "10.0.1.1" }, 1)).toEqual({
      path: ["gateway"],
      message: "must be a host address of 10.0.0.0/24",
    });
    expect(allocate({ cidr: "10.0.0.0/24", from: "10.0.0.0" }, 1)).toEqual({
      path: ["from"],
      message: "must be a host address of 10.0.0.0/24",
    });
  });

  it("refuses a list too short, a repeated address or the gateway in the list", () => {
    expect(allocate({ addresses: ["10.0.0.5/24"] }, 2)).toEqual({
      path: ["addresses"],
      message: "lists 1 address for count 2: add one per member",
    });
    expect(allocate({ addresses: ["10.0.0.5/24", "10.0.0.6/24", "10.0.0.5/24"] }, 1)).toEqual({
      path: ["addresses", "2"],
      message: "repeats 10.0.0.5, already addresses[0]",
    });
    expect(allocate({ addresses: ["10.0.0.5/24", "10.0.0.1/24"], gateway: "10.0.0.1" }, 1)).toEqual(
      { path: ["gateway"], message: "is addresses[1], a member's address" },
    );
  });

  it("refuses a CIDR with host bits set, suggesting its network and from", () => {
    const parsed = ipv4PoolSchema.safeParse({ cidr: "10.0.0.5/24" });
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      expect.stringContaining(
        "must be a network address (host bits zero), e.g. 10.0.0.0/24; to start the members at 10.0.0.5, set it as from",
      ),
    ]);
  });

  it("allocates nothing for a count of 0", () => {
    expect(allocate({ cidr: "10.0.0.0/30" }, 0)).toEqual([]);
  });
});
