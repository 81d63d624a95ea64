/**
 * The VM's NICs, as the user writes them (`networks`, or `network` for one NIC), and the NoCloud
 * network-config entries they become. Both take their formats from the same parts, so `check` accepts exactly what the seed
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
} from "../../inputs/formats";

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

/** What every NIC has, in either form: where it is plugged and how the seed addresses it. */
const nicParts = {
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
};

export const networkSchema = z.strictObject({
  ...nicParts,
  nameservers: nameservers.optional(),
  searchDomains: searchDomains.optional(),
});

export type NetworkInputs = z.infer<typeof networkSchema>;

/** PVE keeps at most 32 NICs, net0 to net31. */
const MAX_NICS = 32;

/** One entry of `networks`: a NIC with PVE's device options, in the ranges PVE 8.4 accepts. */
const nicSchema = z
  .strictObject({
    ...nicParts,
    // PVE stores MACs upper-case; compared that way, a lower-case pin is not drift.
    mac: macAddress.transform((mac) => mac.toUpperCase()).optional(),
    firewall: z.boolean().optional(),
    mtu: z
      .number()
      .int()
      .min(1, "MTU is 1 to 65520 (1: the bridge's)")
      .max(65520, "MTU is 1 to 65520 (1: the bridge's)")
      .optional(),
    rate: z.number().positive("must be a rate limit in MB/s above 0").optional(),
    queues: z
      .number()
      .int()
      .min(1, "packet queues are 1 to 64")
      .max(64, "packet queues are 1 to 64")
      .optional(),
    // PVE's `trunks` (`$net_fmt`: `vlanid[;vlanid...]`), kept sorted as PVE compares nothing else.
    trunks: z
      .array(
        z.number().int().min(1, "VLAN tags are 1 to 4094").max(4094, "VLAN tags are 1 to 4094"),
      )
      .min(1, "must list at least one VLAN (or leave trunks out)")
      .transform((tags) => [...new Set(tags)].sort((a, b) => a - b))
      .optional(),
    linkDown: z.boolean().optional(),
  })
  .superRefine((nic, ctx) => {
    // PVE's net format: "Force MTU, for VirtIO only".
    if (nic.mtu !== undefined && nic.model !== "virtio")
      ctx.addIssue({ code: "custom", path: ["mtu"], message: "is for virtio NICs only" });
  });

export type NicInputs = z.output<typeof nicSchema>;

/** `networks`: the VM's NICs in order (net0, net1…), each MAC at most once. */
export const networksSchema = z
  .array(nicSchema)
  .min(1, "must list at least one NIC (or leave networks out for the template's net0)")
  .max(MAX_NICS, `PVE has at most ${MAX_NICS} NICs (net0 to net31)`)
  .superRefine((nics, ctx) => {
    nics.forEach((nic, i) => {
      const first = nics.findIndex((other) => other.mac === nic.mac);
      if (nic.mac !== undefined && first < i)
        ctx.addIssue({
          code: "custom",
          path: [i, "mac"],
          message: `is already the MAC of networks[${first}]; each NIC needs its own`,
        });
    });
  });

/** The VM-level DNS settings every form of the network shares. */
export const nameserversSchema = nameservers;
export const searchDomainsSchema = searchDomains;

/** The NIC config key of the NIC at `index`: net0, net1… */
export const nicKey = (index: number) => `net${index}`;

/**
 * The VM's NICs as one list, whichever form the program used: `networks`, else the one-NIC
 * `network` shorthand (its default when left out). DNS comes from the VM level, else from the
 * shorthand.
 */
export interface VmNics {
  readonly nics: readonly (NicInputs | NetworkInputs)[];
  readonly nameservers?: readonly string[] | undefined;
  readonly searchDomains?: readonly string[] | undefined;
}

export function nicsOf(inputs: {
  /** Absent only for an adopted VM whose program sets no NIC: it keeps its own. */
  readonly network?: NetworkInputs | undefined;
  readonly networks?: readonly NicInputs[] | undefined;
  readonly nameservers?: readonly string[] | undefined;
  readonly searchDomains?: readonly string[] | undefined;
}): VmNics {
  return {
    nics: inputs.networks ?? (inputs.network === undefined ? [] : [inputs.network]),
    nameservers: inputs.nameservers ?? inputs.network?.nameservers,
    searchDomains: inputs.searchDomains ?? inputs.network?.searchDomains,
  };
}

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

/**
 * The seed's network-config: one entry per NIC, matched by its MAC (`macs[i]` is NIC i's, pinned
 * or as PVE generated it). The VM-level DNS goes on the first NIC: resolvers are global to the
 * guest, and the first NIC is the one the VM is reached by.
 */
export function seedNicsOf(vm: VmNics, macs: readonly (string | undefined)[]): SeedNic[] {
  return vm.nics.map((nic, i) => ({
    ...(macs[i] === undefined ? {} : { mac: macs[i].toLowerCase() }),
    ...(nic.ipv4 === "dhcp"
      ? { dhcp4: true }
      : {
          addresses: [nic.ipv4.address],
          ...(nic.ipv4.gateway === undefined ? {} : { gateway4: nic.ipv4.gateway }),
        }),
    ...(nic.ipv6 === undefined ? {} : ipv6Of(nic.ipv6)),
    ...(i > 0 || (vm.nameservers === undefined && vm.searchDomains === undefined)
      ? {}
      : {
          nameservers: {
            addresses: [...(vm.nameservers ?? [])],
            search: [...(vm.searchDomains ?? [])],
          },
        }),
  }));
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
