/**
 * Finds what this package left on a cluster: VMs whose description carries the identity mark,
 * and seed ISOs named `pp-<owner>-<hash>.iso`; with the shared pieces sweep-templates.ts uses
 * too (every VM's config read once, volumes of a content type on every node). Read-only.
 */
import {
  hasCode,
  parseSeedName,
  readMark,
  seedOwnerOf,
  type ClusterVm,
  type ProxmoxApi,
  type VmConfig,
} from "../provider/entry";
import { identitiesIn, readStates, type OwnerSources } from "./sweep-owners";

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
  /** The owning VM's seed owner (`seedOwnerOf` its identity). */
  readonly owner: string;
}

export interface VmScan {
  readonly marked: MarkedVm[];
  /** Every ISO volid some VM (marked or not) has in a drive, e.g. `local:iso/pp-….iso`. */
  readonly attached: Set<string>;
}

/** A VM's config, or undefined when it is gone since the listing. */
export async function configUnlessGone(
  api: ProxmoxApi,
  node: string,
  vmid: number,
): Promise<VmConfig | undefined> {
  try {
    return await api.vmConfig(node, vmid);
  } catch (error) {
    if (hasCode(error, "NOT_FOUND")) return undefined;
    throw error;
  }
}

/** A VM's listing row with its config: read once, for every scan of one sweep. */
export interface ScannedVm {
  readonly row: ClusterVm;
  readonly config: VmConfig;
}

/** Every QEMU VM's config, templates included, each read once; a VM gone since the listing is left out. */
export async function readVmConfigs(api: ProxmoxApi): Promise<ScannedVm[]> {
  const out: ScannedVm[] = [];
  for (const row of await api.clusterVms()) {
    if (row.type !== "qemu") continue;
    const config = await configUnlessGone(api, row.node, row.vmid);
    if (config !== undefined) out.push({ row, config });
  }
  return out;
}

/** The marked VMs (not templates), and which ISOs any VM that is not a template has attached. */
export function scanVms(vms: readonly ScannedVm[]): VmScan {
  const out: MarkedVm[] = [];
  const attached = new Set<string>();
  for (const { row, config } of vms) {
    if (row.template === true) continue;
    for (const value of Object.values(config)) {
      const volid = typeof value === "string" ? value.split(",")[0] : undefined;
      if (volid !== undefined && /^[^:,\s]+:iso\//.test(volid)) attached.add(volid);
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
  return { marked: out.sort((a, b) => a.vmid - b.vmid), attached };
}

/** Where a volume was found: its volid, a node that lists it, and the storage. */
export interface FoundVolume {
  readonly volid: string;
  readonly node: string;
  readonly storage: string;
}

/**
 * Every volume of `content` that `recognise` names (by returning its facts) on every online
 * node's enabled and active storages of that content; a shared storage is listed once. Sorted by
 * volid, then node.
 */
export async function findVolumes<T extends object>(
  api: ProxmoxApi,
  content: string,
  recognise: (volid: string) => T | undefined,
): Promise<(FoundVolume & T)[]> {
  const found = new Map<string, FoundVolume & T>();
  for (const node of await api.nodes()) {
    if (node.status !== "online") continue;
    for (const storage of await api.nodeStorages(node.node)) {
      if (!storage.content.includes(content) || !storage.enabled || !storage.active) continue;
      for (const volume of await api.storageContent(node.node, storage.storage, content)) {
        const facts = recognise(volume.volid);
        if (facts === undefined) continue;
        const key = storage.shared ? volume.volid : `${node.node}/${volume.volid}`;
        if (!found.has(key)) {
          found.set(key, {
            ...facts,
            volid: volume.volid,
            node: node.node,
            storage: storage.storage,
          });
        }
      }
    }
  }
  return [...found.values()].sort(
    (a, b) => a.volid.localeCompare(b.volid) || a.node.localeCompare(b.node),
  );
}

/** Every seed ISO on every online node's ISO storages; a shared storage is listed once. */
export async function seedIsos(api: ProxmoxApi): Promise<SeedIso[]> {
  return findVolumes(api, "iso", (volid) => {
    const seed = parseSeedName(volid);
    return seed === undefined ? undefined : { owner: seed.owner };
  });
}

/** What the states say about seeds: the ones their resources record, and who is mid-operation. */
export interface StateSeeds {
  /** Every `seedVolid` a ProxmoxVm in a state records. */
  readonly volids: Set<string>;
  /** Seed owners of resources with a pending operation: an `up` may be re-seeding them. */
  readonly busyOwners: Set<string>;
}

interface SeedDeployment {
  readonly deployment?: {
    readonly resources?: readonly { type?: string; outputs?: Record<string, unknown> }[];
    readonly pending_operations?: readonly { resource?: unknown }[];
  };
}

function stateSeedsIn(state: SeedDeployment): StateSeeds {
  const volids = new Set<string>();
  for (const resource of state.deployment?.resources ?? []) {
    const volid = resource.outputs?.["seedVolid"];
    if (typeof volid === "string") volids.add(volid);
  }
  const pending = (state.deployment?.pending_operations ?? []).flatMap((op) =>
    op.resource === undefined ? [] : [op.resource],
  );
  const busy = identitiesIn({ deployment: { resources: pending } } as Parameters<
    typeof identitiesIn
  >[0]);
  return { volids, busyOwners: new Set([...busy].map(seedOwnerOf)) };
}

/** {@link stateSeedsIn} over every given state. */
export async function stateSeeds(sources: OwnerSources): Promise<StateSeeds> {
  const all: StateSeeds = { volids: new Set(), busyOwners: new Set() };
  for (const state of await readStates(sources)) {
    const one = stateSeedsIn(state as SeedDeployment);
    for (const v of one.volids) all.volids.add(v);
    for (const o of one.busyOwners) all.busyOwners.add(o);
  }
  return all;
}

/**
 * A seed of an owned identity that nothing uses: no VM has it attached, no state records it,
 * and no operation on its resource is pending (an `up` uploads a new seed before attaching it).
 * What a VM deleted outside Pulumi and then recreated leaves behind.
 */
export function isStaleSeed(
  seed: SeedIso,
  attached: ReadonlySet<string>,
  states: StateSeeds,
): boolean {
  return (
    !attached.has(seed.volid) &&
    !states.volids.has(seed.volid) &&
    !states.busyOwners.has(seed.owner)
  );
}
