/**
 * The bridge between a VM's inputs and the NoCloud seed builder (provider/vm/seed/): the hostname
 * defaults to the VM name, the network config is derived from the NICs and matched to each
 * by its MAC, and the file name carries the VM's identity so a sweep can tell whose seed it is.
 */
import type { IsoUpload } from "../../pve/api/proxmox-api";
import { seedOwnerOf } from "../identity";
import { buildSeed } from "../seed/build-seed";
import { validateCloudInit } from "../seed/seed-inputs";
import { parseSeedName } from "../seed/seed-name";
import { seedNicsOf, type VmNics } from "../spec/network";

export interface VmSeedRequest {
  readonly identity: string;
  readonly vmName: string;
  /** Each NIC's MAC, in NIC order: pinned, or as PVE generated it. */
  readonly macs: readonly (string | undefined)[];
  readonly nics: VmNics;
  readonly cloudInit: unknown;
}

export type VmSeed = IsoUpload;

export function buildVmSeed(request: VmSeedRequest): VmSeed {
  const cloudInit = (request.cloudInit ?? {}) as Record<string, unknown>;
  const network = seedNicsOf(request.nics, request.macs);
  const validated = validateCloudInit({ ...cloudInit, network });
  if (!validated.ok) {
    // check() parsed the NICs and `cloudInit` with the same formats; reaching this is a bug.
    throw new Error(
      `invalid cloud-init: ${validated.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`,
    );
  }
  const seed = buildSeed(validated.value, {
    instanceId: request.identity,
    hostname: request.vmName,
    owner: seedOwnerOf(request.identity),
  });
  return { filename: seed.filename, bytes: seed.bytes, zeroTail: seed.zeroTail };
}

/** Whether a volume is a seed ISO of the VM with this identity. */
export function isSeedOf(volid: string, identity: string): boolean {
  return parseSeedName(volid)?.owner === seedOwnerOf(identity);
}
