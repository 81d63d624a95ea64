/**
 * The config writes of `converge`: the NICs PVE must name first, the keys that differ (in one
 * task), and the "complete" mark last.
 */
import type { VmConfig, VmPendingConfig } from "../../pve/api/proxmox-api";
import { describe, markFor, readMark } from "../identity";
import { configDeletes, configChanges as specChanges, keysWithInputs } from "../spec/apply";
import type { Seen } from "../spec/field";
import { nicKey, type VmNics } from "../spec/network";
import { cdromVolid, doesStorageWork } from "../state/vm-facts";
import { seenIn, writeConfig, type ConvergeRun } from "./converge-run";

/** What the config step wrote: the keys set and the keys deleted. */
export interface ConfigWrite {
  readonly set: Readonly<Record<string, string | number>>;
  readonly deleted: readonly string[];
}

/**
 * A NIC the VM does not have yet and whose MAC is not pinned is added before the seed is built:
 * PVE generates its MAC (with the cluster's MAC prefix) on the write, and the seed needs it to
 * name the NIC. On a running VM PVE hot-plugs it (with `network` in `hotplug`, the default).
 * Returns the config as it is afterwards.
 */
export async function attachNewNics(
  run: ConvergeRun,
  known: VmPendingConfig,
  nics: VmNics,
): Promise<VmPendingConfig> {
  const { ctx, vm, desired } = run;
  const config = known.config;
  const seen = seenIn(config, nics);
  const unnamed = new Set(
    nics.nics.flatMap((_, i) => (seen.macs[nicKey(i)] === undefined ? [nicKey(i)] : [])),
  );
  const set = Object.fromEntries(
    Object.entries(specChanges(config, desired, { ...seen, config })).filter(([key]) =>
      unnamed.has(key),
    ),
  );
  if (Object.keys(set).length === 0) return known;
  const keys = keysWithInputs(Object.keys(set), desired, seen);
  await writeConfig(run, `adding ${keys.join(", ")}`, () =>
    ctx.api.updateVmConfig(vm.node, vm.vmid, { set }),
  );
  return ctx.api.vmPending(vm.node, vm.vmid);
}

/**
 * Writes only the keys that differ, in one task; removed NICs and detached disks go in it. A
 * fresh clone is stopped, so nothing hotplugs: unless the write allocates or removes volumes, PUT
 * applies it at once, with no worker task to wait for.
 */
export async function writeConfigChanges(
  run: ConvergeRun,
  config: VmConfig,
  seen: Seen & { readonly seedVolid: string },
  justCloned: boolean,
): Promise<ConfigWrite> {
  const { ctx, vm, desired } = run;
  const set = configChanges(run, config, seen);
  const deleted = configDeletes(config, desired, seen);
  if (Object.keys(set).length === 0 && deleted.length === 0) return { set, deleted };
  const keys = [
    ...keysWithInputs(Object.keys(set), desired, seen),
    ...keysWithInputs(deleted, desired, seen).map((key) => `${key} (removed)`),
  ];
  const update = { set, ...(deleted.length > 0 ? { delete: deleted } : {}) };
  const inPlace = justCloned && !doesStorageWork(set, deleted);
  await writeConfig(run, `configuring ${keys.join(", ")}`, () =>
    inPlace
      ? ctx.api.updateVmConfigSync(vm.node, vm.vmid, update).then(() => null)
      : ctx.api.updateVmConfig(vm.node, vm.vmid, update),
  );
  return { set, deleted };
}

/** The spec's config keys that differ, plus what the provider itself keeps on every VM. */
function configChanges(
  { desired, naming }: ConvergeRun,
  config: VmConfig,
  seen: Seen & { readonly seedVolid: string },
): Record<string, string | number> {
  // The spec's `agent` entry keeps the guest agent on: it reports the addresses.
  const set = specChanges(config, desired, { ...seen, config });
  // The seed drive carries cloud-init.
  if (cdromVolid(config.ide2) !== seen.seedVolid) set["ide2"] = `${seen.seedVolid},media=cdrom`;
  // The description carries the VM's mark below the user's text: written whole, as one.
  const phase = readMark(config.description)?.phase ?? "creating";
  const description = describe(
    typeof desired.description === "string" ? desired.description : undefined,
    markFor(naming.identity, naming.placement, phase),
  );
  if (config.description !== description) set["description"] = description;
  return set;
}

/** Complete: from now on a create that finds this VM will not resume it. */
export async function markComplete(
  run: ConvergeRun,
  config: VmConfig,
  written: ConfigWrite,
): Promise<void> {
  const { ctx, vm, desired, naming } = run;
  if (readMark(config.description)?.phase === "complete" && !("description" in written.set)) return;
  const description = describe(
    desired.description,
    markFor(naming.identity, naming.placement, "complete"),
  );
  // The description alone never hotplugs or touches storage: PUT writes it at once.
  if (description === config.description) return;
  await writeConfig(run, "marking complete", () =>
    ctx.api.updateVmConfigSync(vm.node, vm.vmid, { set: { description } }).then(() => null),
  );
}
