/**
 * Whether an update is disruptive — whether `rollbackOnFailure` snapshots the VM before it —
 * decided from the spec's own facts about each change, never from a list of inputs:
 *
 * - a key of a `hotplug` field (a disk, a NIC) written or deleted: the guest gets new hardware;
 * - a key of a `reboot` field that the VM does not take at once (its `hotKeys` rule does not
 *   hold for the config it runs with): the VM reboots onto it, or boots onto it next time;
 * - a key of the program's that an earlier `up` left pending: it waits for the same reboot;
 * - a disk that grows or moves (a `hotplug` field's work outside the config);
 * - a changed cloud-init seed, which the guest reads at boot.
 *
 * Everything else (tags, notes, pool, start at boot, a hot-plugged vCPU or balloon change, a
 * stop) is not. Pure: the caller reads the config it plans from.
 */
import type { VmPendingConfig } from "../../pve/api/proxmox-api";
import {
  configChanges,
  configDeletes,
  fieldsBehind,
  keysWithInputs,
  managedKeys,
} from "../spec/apply";
import { waitingKeys } from "../spec/apply";
import { FIELDS } from "../spec/fields";
import { nicKey, nicsOf } from "../spec/network";
import { cdromVolid } from "../state/vm-facts";
import { seenIn } from "../steps/converge-run";
import { planDisks } from "../steps/disk-step";
import type { Naming, ResolvedInputs } from "../steps/resolved-inputs";
import { buildVmSeed } from "../steps/vm-seed";
import type { VmLocation } from "../steps/vm-location";

/** What the planner needs to know of the VM and the update. */
export interface PlannedUpdate {
  readonly vm: VmLocation;
  /** The VM's config and pending keys, as read before anything is written. */
  readonly known: VmPendingConfig;
  readonly desired: ResolvedInputs;
  readonly naming: Naming;
  /** A VM taken over by `adopt: { vmid }` has no seed of ours. */
  readonly adopted: boolean;
}

/**
 * Why the update is disruptive, one reason per change (`cores waits for a reboot`, `scsi1
 * (disks[1]) is plugged in`, `scsi0 grows from 8 to 16 GiB`); empty when it is not.
 */
export function disruptionsOf(plan: PlannedUpdate): string[] {
  const { vm, known, desired } = plan;
  const config = known.config;
  const nics = nicsOf(desired);
  const seen = { ...seenIn(config, nics), config };
  const set = Object.keys(configChanges(config, desired, seen));
  const deleted = configDeletes(config, desired, seen);
  const fields = fieldsBehind([...set, ...deleted], desired, seen);
  const plugged = [...set, ...deleted].filter((key) => {
    const field = fields.get(key);
    return field !== undefined && FIELDS[field].change === "hotplug";
  });
  const waiting = waitingKeys(set, desired, seen, known.current).filter(
    (key) => !plugged.includes(key),
  );
  const managed = managedKeys(desired, seen);
  const leftPending = known.pending.filter((key) => managed.includes(key) && !set.includes(key));
  const work = planDisks(vm, config, desired);

  const named = (keys: readonly string[]) => keysWithInputs(keys, desired, seen);
  return [
    ...named(plugged).map((key) => `${key} is plugged in or changed`),
    ...named(waiting).map((key) => `${key} waits for a reboot`),
    ...named(leftPending).map((key) => `${key} still waits for a reboot`),
    ...work.grows.map((g) => `${g.disk} grows from ${g.fromGiB} to ${g.toGiB} GiB`),
    ...work.moves.map((m) => `${m.disk} moves to ${m.target.storage}`),
    ...(plan.adopted || !seedChanges(plan, nics, seen.macs) ? [] : ["the cloud-init seed changes"]),
  ];
}

/**
 * Whether converge would attach another seed than the VM has: the seed's name is a hash of its
 * content, so it is built here as converge builds it. A NIC without a MAC yet is plugged in
 * (reported above), and its seed cannot be known before PVE names it: not asked then.
 */
function seedChanges(
  { known, desired, naming }: PlannedUpdate,
  nics: ReturnType<typeof nicsOf>,
  macs: Readonly<Record<string, string | undefined>>,
): boolean {
  const all = nics.nics.map((_, i) => macs[nicKey(i)]);
  if (all.some((mac) => mac === undefined)) return false;
  const seed = buildVmSeed({
    identity: naming.identity,
    vmName: naming.vmName,
    macs: all,
    nics,
    cloudInit: desired.cloudInit,
  });
  return cdromVolid(known.config.ide2) !== `${desired.isoStorage}:iso/${seed.filename}`;
}
