/**
 * The VM's one NIC, as the user writes it (`network`), and the NoCloud network-config entry it
 * becomes. Both take their formats from the same parts, so `check` accepts exactly what the seed
 * builder accepts: nothing passes `check` and then fails while the seed is built.
 */
import { z } from "zod";
import {
  ipAddress,
  ipCidr,
  ipv4Address,
  ipv4Cidr,
  ipv6Address,
  ipv6Cidr,
  macAddress,
  searchDomain,
} from "../formats";

const nameservers = z.array(ipAddress);
const searchDomains = z.array(searchDomain);

const ipv4Config = z.union(
  [z.literal("dhcp"), z.strictObject({ address: ipv4Cidr, gateway: ipv4Address.optional() })],
  { error: 'must be "dhcp" or { address: "10.0.0.5/24", gateway: "10.0.0.1" }' },
);

const ipv6Config = z.union(
  [
    z.literal("dhcp"),
    z.literal("auto"),
    z.strictObject({ address: ipv6Cidr, gateway: ipv6Address.optional() }),
  ],
  { error: 'must be "dhcp", "auto" or { address: "2001:db8::10/64", gateway: "2001:db8::1" }' },
);

export const networkSchema = z.strictObject({
  bridge: z
    .string()
    .regex(/^[a-zA-Z][a-zA-Z0-9_.-]*$/, "must be a bridge name, e.g. vmbr0")
    .default("vmbr0"),
  vlan: z
    .number()
    .int()
    .min(1, "VLAN tags are 1 to 4094")
    .max(4094, "VLAN tags are 1 to 4094")
    .optional(),
  mac: macAddress.optional(),
  model: z.enum(["virtio", "e1000", "rtl8139", "vmxnet3"]).default("virtio"),
  ipv4: ipv4Config.default("dhcp"),
  ipv6: ipv6Config.optional(),
  nameservers: nameservers.optional(),
  searchDomains: searchDomains.optional(),
});

export type NetworkInputs = z.infer<typeof networkSchema>;

/** One NIC of the seed's network-config (version 2), matched by its MAC. */
export const seedNicSchema = z.strictObject({
  mac: macAddress.optional(),
  dhcp4: z.boolean().optional(),
  dhcp6: z.boolean().optional(),
  addresses: z.array(ipCidr).optional(),
  gateway4: ipv4Address.optional(),
  gateway6: ipv6Address.optional(),
  nameservers: z
    .strictObject({ addresses: nameservers.optional(), search: searchDomains.optional() })
    .optional(),
});

export type SeedNic = z.infer<typeof seedNicSchema>;

/** The seed's entry for the VM's NIC: `network` as network-config, for the NIC with `mac`. */
export function seedNicOf(network: NetworkInputs, mac: string | undefined): SeedNic {
  return {
    ...(mac === undefined ? {} : { mac: mac.toLowerCase() }),
    ...(network.ipv4 === "dhcp"
      ? { dhcp4: true }
      : {
          addresses: [network.ipv4.address],
          ...(network.ipv4.gateway === undefined ? {} : { gateway4: network.ipv4.gateway }),
        }),
    ...(network.ipv6 === undefined ? {} : ipv6Of(network.ipv6)),
    ...(network.nameservers === undefined && network.searchDomains === undefined
      ? {}
      : {
          nameservers: {
            addresses: network.nameservers ?? [],
            search: network.searchDomains ?? [],
          },
        }),
  };
}

function ipv6Of(ipv6: NonNullable<NetworkInputs["ipv6"]>): SeedNic {
  if (ipv6 === "dhcp") return { dhcp6: true };
  // SLAAC needs nothing in network-config: it is the kernel's default.
  if (ipv6 === "auto") return {};
  return {
    addresses: [ipv6.address],
    ...(ipv6.gateway === undefined ? {} : { gateway6: ipv6.gateway }),
  };
}
