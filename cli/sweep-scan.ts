/**
 * Finds what this package left on a cluster: VMs whose description carries the identity mark,
 * and seed ISOs named `pp-<owner>-<hash>.iso`. Read-only.
 */
import type { ProxmoxApi } from "../provider/api/proxmox-api";
import { hasCode } from "../provider/errors";
import { readMark } from "../provider/identity";
import { parseSeedName } from "../provider/seed/seed-name";

export interface MarkedVm {
  readonly vmid: number;
  readonly node: string;
  /** The VM name from its config. */
  readonly name: string;
  readonly identity: string;
  readonly phase: string;
  readonly isoStorage: string;
  /** The config lock, e.g. `clone` while a clone runs. */
  readonly lock?: string | undefined;
}

export interface SeedIso {
  readonly volid: string;
  readonly node: string;
  readonly storage: string;
  /** The first 12 hex of the owning VM's identity. */
  readonly owner: string;
}

/** Every VM that carries a mark; unmarked VMs and templates are never returned. */
export async function markedVms(api: ProxmoxApi): Promise<MarkedVm[]> {
  const out: MarkedVm[] = [];
  for (const row of await api.clusterVms()) {
    if (row.type !== "qemu" || row.template === true) continue;
    let config;
    try {
      config = await api.vmConfig(row.node, row.vmid);
    } catch (error) {
      if (hasCode(error, "NOT_FOUND")) continue; // gone since the listing
      throw error;
    }
    const mark = readMark(config.description);
    if (mark === undefined || config.template === true) continue;
    out.push({
      vmid: row.vmid,
      node: row.node,
      name: config.name ?? "",
      identity: mark.id,
      phase: mark.phase,
      isoStorage: mark.isoStorage,
      ...(config.lock === undefined ? {} : { lock: config.lock }),
    });
  }
  return out.sort((a, b) => a.vmid - b.vmid);
}

/** Every seed ISO on every online node's ISO storages; a shared storage is listed once. */
export async function seedIsos(api: ProxmoxApi): Promise<SeedIso[]> {
  const found = new Map<string, SeedIso>();
  for (const node of await api.nodes()) {
    if (node.status !== "online") continue;
    for (const storage of await api.nodeStorages(node.node)) {
      if (!storage.content.includes("iso") || !storage.enabled || !storage.active) continue;
      for (const volume of await api.storageContent(node.node, storage.storage, "iso")) {
        const seed = parseSeedName(volume.volid);
        if (seed === undefined) continue;
        const key = storage.shared ? volume.volid : `${node.node}/${volume.volid}`;
        if (!found.has(key)) {
          found.set(key, {
            volid: volume.volid,
            node: node.node,
            storage: storage.storage,
            owner: seed.owner,
          });
        }
      }
    }
  }
  return [...found.values()].sort(
    (a, b) => a.volid.localeCompare(b.volid) || a.node.localeCompare(b.node),
  );
}
