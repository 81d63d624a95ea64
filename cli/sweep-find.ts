/**
 * sweep's find step: what carries this package's mark on the cluster and which of it no given
 * state owns — VMs, seed ISOs (and stale seeds of owned identities), templates and their images.
 * Read-only.
 */
import { seedOwnerOf, type ProxmoxApi } from "../provider/entry";
import { where, type OrphanSeed, type Orphans } from "./sweep-items";
import { readOwners, readStates, type OwnerSources, type Owners } from "./sweep-owners";
import {
  isStaleSeed,
  readVmConfigs,
  scanVms,
  seedIsos,
  stateSeeds,
  type StateSeeds,
  type VmScan,
} from "./sweep-scan";
import { leftSnapshots } from "./sweep-snapshots";
import { scanTemplates, templateImages } from "./sweep-templates";

/** Only these identities (and their seeds) are considered; undefined: every identity. */
type Only = ReadonlySet<string> | undefined;

export async function findOrphans(
  api: ProxmoxApi,
  sources: OwnerSources,
  only: Only,
): Promise<Orphans> {
  // Each state read once, for both what it owns and the seeds it records.
  const read = { ...sources, states: await readStates(sources) };
  const owners = await readOwners(read);
  const states = await stateSeeds(read);
  // One read of every VM's config serves both scans; the listing is read fresh, never one this
  // process's coalescer kept from before the states were read.
  api.invalidateClusterVms?.();
  const configs = await readVmConfigs(api);
  const scan = scanVms(configs);
  const considered = (identity: string) => only === undefined || only.has(identity);
  const marked = scanTemplates(configs);
  // An image a marked template names goes with that template (or stays with it).
  const referenced = new Set(marked.map((t) => t.image));
  const { owned: ownedTemplates, interrupted: killedTemplates } = owners.templates;
  return {
    vms: scan.marked
      .filter((vm) => !owners.owned.has(vm.identity) && considered(vm.identity))
      .map((vm) => ({ ...vm, interrupted: owners.interrupted.has(vm.identity) })),
    seeds: await orphanSeeds(api, owners, scan, states, only),
    templates: marked
      .filter((t) => !ownedTemplates.has(t.identity) && considered(t.identity))
      .map((t) => ({ ...t, interrupted: killedTemplates.has(t.identity) })),
    images: (await templateImages(api))
      .filter(
        (image) =>
          !ownedTemplates.has(image.identity) &&
          !referenced.has(image.volid) &&
          considered(image.identity),
      )
      .map((image) => ({ ...image, interrupted: killedTemplates.has(image.identity) })),
    snapshots: await leftSnapshots(
      api,
      scan.marked.filter((vm) => owners.owned.has(vm.identity) && considered(vm.identity)),
    ),
    ownedIdentities: owners.owned.size,
    ownedVms: scan.marked.filter((vm) => owners.owned.has(vm.identity)).length,
  };
}

/** Seeds no state owns, and stale seeds of owned identities (nothing attaches or records them). */
async function orphanSeeds(
  api: ProxmoxApi,
  owners: Owners,
  scan: VmScan,
  states: StateSeeds,
  only: Only,
): Promise<OrphanSeed[]> {
  const owned = new Set([...owners.owned].map(seedOwnerOf));
  const onlyOwners = only && new Set([...only].map(seedOwnerOf));
  const out: OrphanSeed[] = [];
  for (const seed of await seedIsos(api)) {
    if (onlyOwners !== undefined && !onlyOwners.has(seed.owner)) continue;
    if (!owned.has(seed.owner)) out.push({ ...seed, why: where(seed) });
    else if (isStaleSeed(seed, scan.attached, states)) {
      const stale =
        "stale: its identity is owned, but no VM has it attached and no state records it";
      out.push({ ...seed, why: `${where(seed)}; ${stale}` });
    }
  }
  return out;
}
