/** The VM's NICs and the DNS settings its seed configures. */
import { z } from "zod";
import { canonical } from "../../inputs/canonical";
import { formatNic, parseNic, type Nic } from "../state/vm-facts";
import { field } from "./field";
import { text } from "./firmware";
import {
  nameserversSchema,
  networkSchema,
  networksSchema,
  nicKey,
  searchDomainsSchema,
  type NicInputs,
} from "./network";

/**
 * A VM-level DNS setting: part of the seed (a changed seed reboots a running VM), not of a NIC,
 * and refused beside an explicit `network`, which carries its own.
 */
function seedDns<S extends z.ZodType>(
  name: "nameservers" | "searchDomains",
  doc: string,
  schema: S,
  example: { readonly valid: unknown; readonly invalid: unknown },
) {
  return field({
    doc,
    docType: "string[]",
    schema,
    mayBeUnknown: false,
    change: "reboot",
    stored: z.array(z.string()).optional(),
    refusedBeside: {
      input: "network",
      reason: `set network.${name}, or move network into networks`,
    },
    // The seed's name carries a hash of its content (the `seedVolid` output): a change is seen there.
    readBack: { from: "input" },
    example,
  });
}

/** NICs and DNS. */
export const NETWORK_FIELDS = {
  network: field({
    doc: "The VM's NIC (net0) and the address its seed configures; the one-NIC form of `networks`.",
    docType: "NetworkArgs",
    argType: "NetworkArgs",
    schema: networkSchema,
    default: networkSchema.parse({}),
    mayBeUnknown: false,
    change: "hotplug",
    // An adopted VM whose program sets no NIC has none.
    stored: networkSchema.optional(),
    shorthandOf: "networks",
    config: {
      key: "net0",
      format: (network, seen) => formatNic(network, seen.macs["net0"]),
      // Only what formatNic writes for this form: PVE's own options (firewall=1, queues…) stay.
      same: (current, wanted) => {
        const now = parseNic(text(current));
        const want = parseNic(String(wanted));
        return now !== undefined && want !== undefined && sameNic(now, want);
      },
    },
    readBack: {
      from: "vm",
      read: ({ config }, input) => {
        const net0 = parseNic(config.net0);
        return {
          ...input,
          bridge: net0?.bridge ?? input.bridge,
          ...(net0?.vlan === undefined ? {} : { vlan: net0.vlan }),
          ...(input.mac === undefined ? {} : { mac: net0?.mac ?? input.mac }),
        };
      },
    },
    example: { valid: { bridge: "vmbr1", vlan: 20 }, invalid: { vlan: 5000 } },
  }),
  networks: field({
    doc:
      "The VM's NICs in order (net0, net1…), each with the address its seed configures, matched " +
      "by MAC. NICs beyond the list are removed; a NIC added to a running VM is hot-plugged, and a " +
      "running VM takes new `trunks` or `linkDown` at once.",
    docType: "NicArgs[]",
    argType: "NicArgs[]",
    schema: networksSchema,
    mayBeUnknown: false,
    change: "hotplug",
    stored: networksSchema.optional(),
    configKeys: {
      format: (nics, seen) =>
        Object.fromEntries(nics.map((nic, i) => [nicKey(i), formatNic(nic, seen.macs[nicKey(i)])])),
      same: (_key, current, wanted) => {
        const now = parseNic(typeof current === "string" ? current : undefined);
        const want = parseNic(String(wanted));
        return (
          now !== undefined && want !== undefined && canonical(asked(now, want)) === canonical(want)
        );
      },
    },
    ownsKeys: /^net\d+$/,
    readBack: {
      from: "vm",
      // A NIC missing on PVE is missing from the list, so `up` adds it again.
      read: ({ config }, input) =>
        input.flatMap((nic, i) => {
          const now = parseNic(config[nicKey(i)] as string | undefined);
          return now === undefined ? [] : [{ ...nic, ...asked(now, nic) } as NicInputs];
        }),
      // net0, net1… up to the first gap, each with the options PVE's value sets (no MAC: the
      // VM keeps its own unless one is pinned).
      probe: ({ config }) => {
        const nics: NicInputs[] = [];
        for (let i = 0; ; i++) {
          const now = parseNic(config[nicKey(i)] as string | undefined);
          if (now === undefined) return nics.length === 0 ? undefined : nics;
          const { mac: _mac, ...options } = now;
          nics.push(
            Object.fromEntries(
              Object.entries(options).filter(([, value]) => value !== undefined),
            ) as NicInputs,
          );
        }
      },
    },
    example: {
      valid: [{ bridge: "vmbr0" }, { bridge: "vmbr1", vlan: 20, mtu: 9000, firewall: true }],
      invalid: [{ bridge: "vmbr0" }, { bridge: "vmbr1", queues: 65 }],
    },
  }),
  nameservers: seedDns(
    "nameservers",
    "DNS servers the seed configures (on the first NIC). With `network`, set them there.",
    nameserversSchema,
    { valid: ["10.0.0.53", "2001:db8::53"], invalid: ["10.0.0"] },
  ),
  searchDomains: seedDns(
    "searchDomains",
    "DNS search domains the seed configures (on the first NIC). With `network`, set them there.",
    searchDomainsSchema,
    { valid: ["example.com"], invalid: ["-bad"] },
  ),
} as const;

function sameNic(a: Nic, b: Nic): boolean {
  return (
    a?.model === b?.model && a?.mac === b?.mac && a?.bridge === b?.bridge && a?.vlan === b?.vlan
  );
}

/**
 * What PVE's NIC says about what the program asked for: model, bridge and VLAN always (no tag is a
 * setting too), the MAC when one is asked for, PVE's other options only when asked for.
 */
function asked(now: Nic, want: Nic | NicInputs): Nic {
  const only = <K extends "mac" | "firewall" | "mtu" | "rate" | "queues" | "trunks" | "linkDown">(
    key: K,
  ) =>
    want[key] === undefined
      ? {}
      : { [key]: key === "firewall" || key === "linkDown" ? (now[key] ?? false) : now[key] };
  return {
    model: now.model,
    bridge: now.bridge,
    vlan: now.vlan,
    ...only("mac"),
    ...only("firewall"),
    ...only("mtu"),
    ...only("rate"),
    ...only("queues"),
    ...only("trunks"),
    ...only("linkDown"),
  };
}
