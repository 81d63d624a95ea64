/**
 * Static IPv4 addresses for a fleet's members, from a CIDR or a list. Pure: member `i` gets the
 * pool's address number `i`, whatever the fleet's size, so a member keeps its address when the
 * fleet grows or shrinks. The count only decides whether the pool is large enough.
 */
import { z } from "zod";
import { ipv4Address, ipv4Cidr } from "../provider/entry";

/** `{ cidr, gateway?, from? }`: consecutive addresses of one network, from `from` upwards. */
const cidrPoolSchema = z.strictObject({
  cidr: ipv4Cidr.refine(isNetworkAddress, {
    error: (issue) =>
      `must be a network address (host bits zero), e.g. ${networkOf(String(issue.input))}; ` +
      `to start the members at ${String(issue.input).split("/")[0]}, set it as from`,
  }),
  gateway: ipv4Address.optional(),
  from: ipv4Address.optional(),
});

/** `{ addresses, gateway? }`: member `i` gets `addresses[i]`, each with its prefix length. */
const listPoolSchema = z.strictObject({
  addresses: z.array(ipv4Cidr).min(1, "must list at least one address"),
  gateway: ipv4Address.optional(),
});

export const ipv4PoolSchema = z.union([cidrPoolSchema, listPoolSchema], {
  error:
    'must be { cidr: "10.0.0.0/24", gateway?, from? } or { addresses: ["10.0.0.5/24", …], gateway? }',
});

export type Ipv4Pool = z.input<typeof ipv4PoolSchema>;

/** The first NIC's address of one member: what `ProxmoxVm`'s `ipv4` takes. */
export interface StaticIpv4 {
  readonly address: string;
  readonly gateway?: string;
}

/** Why a pool cannot address a fleet: the pool's property (under `ipv4`) and the reason. */
export interface PoolProblem {
  readonly path: readonly string[];
  readonly message: string;
}

/** Each member's address, index by index, or the problem that stops the allocation. */
export function allocateIpv4(
  pool: z.output<typeof ipv4PoolSchema>,
  count: number,
): StaticIpv4[] | PoolProblem {
  const gateway = pool.gateway === undefined ? {} : { gateway: pool.gateway };
  const addresses = "cidr" in pool ? fromCidr(pool, count) : fromList(pool, count);
  if (!Array.isArray(addresses)) return addresses;
  return addresses.map((address) => ({ address, ...gateway }));
}

function fromCidr(pool: z.output<typeof cidrPoolSchema>, count: number): string[] | PoolProblem {
  const [network = "", prefixText = ""] = pool.cidr.split("/");
  const prefix = Number(prefixText);
  const size = 2 ** (32 - prefix);
  const firstHost = toInt(network) + 1;
  // The network and broadcast addresses are no host's.
  const lastHost = toInt(network) + size - 2;
  const gateway = pool.gateway === undefined ? undefined : toInt(pool.gateway);
  const within = (address: number) => address >= firstHost && address <= lastHost;
  if (gateway !== undefined && !within(gateway)) {
    return { path: ["gateway"], message: `must be a host address of ${pool.cidr}` };
  }
  if (pool.from !== undefined && !within(toInt(pool.from))) {
    return { path: ["from"], message: `must be a host address of ${pool.cidr}` };
  }
  // With the gateway on the network's first address, as is usual, members start after it.
  const start =
    pool.from === undefined
      ? gateway === firstHost
        ? firstHost + 1
        : firstHost
      : toInt(pool.from);
  const startAt = pool.from === undefined ? "cidr" : "from";
  const last = start + count - 1;
  if (last > lastHost) {
    const room = Math.max(0, lastHost - start + 1);
    return {
      path: [startAt],
      message:
        `has room for ${room} member${room === 1 ? "" : "s"} from ${toText(start)} to ` +
        `${toText(lastHost)}, but count is ${count}: choose a larger network or a lower from`,
    };
  }
  if (gateway !== undefined && count > 0 && gateway >= start && gateway <= last) {
    return {
      path: ["gateway"],
      message:
        `is among the members' addresses ${toText(start)} to ${toText(last)}: ` +
        `set from above the gateway, or move the gateway out of that range`,
    };
  }
  return Array.from({ length: count }, (_, i) => `${toText(start + i)}/${prefix}`);
}

function fromList(pool: z.output<typeof listPoolSchema>, count: number): string[] | PoolProblem {
  const hosts = pool.addresses.map((address) => address.split("/")[0]);
  const twice = hosts.findIndex((host, i) => hosts.indexOf(host) < i);
  if (twice >= 0) {
    return {
      path: ["addresses", String(twice)],
      message: `repeats ${hosts[twice]}, already addresses[${hosts.indexOf(hosts[twice])}]`,
    };
  }
  if (pool.gateway !== undefined && hosts.includes(pool.gateway)) {
    return {
      path: ["gateway"],
      message: `is addresses[${hosts.indexOf(pool.gateway)}], a member's address`,
    };
  }
  if (pool.addresses.length < count) {
    return {
      path: ["addresses"],
      message:
        `lists ${pool.addresses.length} address${pool.addresses.length === 1 ? "" : "es"} ` +
        `for count ${count}: add one per member`,
    };
  }
  return pool.addresses.slice(0, count);
}

/** A value that is no CIDR at all is `ipv4Cidr`'s to report, not this rule's. */
function isNetworkAddress(cidr: string): boolean {
  return !ipv4Cidr.safeParse(cidr).success || networkOf(cidr) === cidr;
}

/** `10.0.0.5/24` → `10.0.0.0/24`. */
function networkOf(cidr: string): string {
  const [address = "", prefix = ""] = cidr.split("/");
  const hostBits = 32 - Number(prefix);
  const network = hostBits === 32 ? 0 : (toInt(address) >>> hostBits) * 2 ** hostBits;
  return `${toText(network)}/${prefix}`;
}

function toInt(address: string): number {
  return address.split(".").reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

function toText(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join(".");
}
