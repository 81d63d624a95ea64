/**
 * The bridge between a VM's inputs and the NoCloud seed builder (provider/seed/): the hostname
 * defaults to the VM name, the network config is derived from `network` and matched to the NIC
 * by its MAC, and the file name carries the VM's identity so a sweep can tell whose seed it is.
 */
import type { NetworkInputs } from "../inputs";
import { buildSeed } from "../seed/build-seed";
import { validateCloudInit } from "../seed/inputs";
import { parseSeedName } from "../seed/seed-name";

export interface VmSeedRequest {
  readonly identity: string;
  readonly vmName: string;
  readonly mac: string | undefined;
  readonly network: NetworkInputs;
  readonly cloudInit: unknown;
}

export interface VmSeed {
  readonly filename: string;
  readonly bytes: Uint8Array;
}

export function buildVmSeed(request: VmSeedRequest): VmSeed {
  const cloudInit = (request.cloudInit ?? {}) as Record<string, unknown>;
  const { network } = request;
  const nic = {
    ...(request.mac === undefined ? {} : { mac: request.mac.toLowerCase() }),
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
  const validated = validateCloudInit({ ...cloudInit, network: [nic] });
  if (!validated.ok) {
    // check() parsed `network` and `cloudInit` with the same formats; reaching this is a bug.
    throw new Error(
      `invalid cloud-init: ${validated.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`,
    );
  }
  const seed = buildSeed(validated.value, {
    instanceId: request.identity,
    hostname: request.vmName,
    owner: seedOwner(request.identity),
  });
  return { filename: seed.filename, bytes: seed.bytes };
}

function ipv6Of(ipv6: NonNullable<NetworkInputs["ipv6"]>) {
  if (ipv6 === "dhcp") return { dhcp6: true };
  // SLAAC needs nothing in network-config: it is the kernel's default.
  if (ipv6 === "auto") return {};
  return {
    addresses: [ipv6.address],
    ...(ipv6.gateway === undefined ? {} : { gateway6: ipv6.gateway }),
  };
}

/** Whether a volume is a seed ISO of the VM with this identity. */
export function isSeedOf(volid: string, identity: string): boolean {
  return parseSeedName(volid)?.owner === seedOwner(identity);
}

const seedOwner = (identity: string) => identity.slice(0, 12);
