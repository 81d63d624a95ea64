/**
 * What a stack's operations left on the simulator, beyond what it was seeded with, and the
 * check of it against what should be there: shared by the crash points and the fault matrix.
 */
import type { Simulator } from "../../../simulator";
import { guestVms, seedIsos } from "./proxmox-stack";

/** What the stack must hold: guest VMs and templates it made. */
export interface Expected {
  readonly vms: number;
  readonly templates: number;
  /** Snapshots on the guest VMs (none when absent). */
  readonly snapshots?: number;
}

/** What a stack's operations can leave on the simulator, beyond the VMs and templates it seeded. */
interface Inventory {
  readonly vms: number[];
  readonly templates: number[];
  readonly seeds: string[];
  /** Downloaded cloud images (`import` content named by a template's identity). */
  readonly images: string[];
  /** Disk volumes whose VM does not exist: a copy a move or a delete left behind. */
  readonly orphanDisks: string[];
  /** VMs and templates with a config lock. */
  readonly locked: number[];
  /** Snapshots `rollbackOnFailure` took (`pp-update-…`), as `<vmid>/<name>`. */
  readonly updateSnapshots: string[];
  /** How many image downloads the simulator ran without failing (a failed one may be repeated). */
  readonly downloads: number;
  /** Each guest VM's snapshots, as `<vmid>/<name>`. */
  readonly snapshots: string[];
}

export function inventory(sim: Simulator, seeded: ReadonlySet<number>): Inventory {
  const volumes = ["pve1", "pve2"].flatMap((node) =>
    sim.model.storages.flatMap((storage) => sim.model.volumes(node, storage.storage)),
  );
  const volids = (keep: (v: (typeof volumes)[number]) => boolean) =>
    [...new Set(volumes.filter(keep).map((v) => v.volid))].sort();
  return {
    vms: guestVms(sim),
    templates: [...sim.model.vms]
      .filter(([vmid, vm]) => vm.config["template"] && !seeded.has(vmid))
      .map(([vmid]) => vmid),
    seeds: seedIsos(sim),
    images: volids((v) => v.content === "import" && v.volid.includes(":import/pp-tmpl-")),
    orphanDisks: volids(
      (v) => v.content === "images" && v.vmid !== undefined && !sim.model.vms.has(v.vmid),
    ),
    locked: [...sim.model.vms]
      .filter(([, vm]) => vm.config["lock"] !== undefined)
      .map(([vmid]) => vmid),
    updateSnapshots: [...sim.model.vms].flatMap(([vmid, vm]) =>
      Object.keys(vm.snapshots ?? {})
        .filter((name) => name.startsWith("pp-update-"))
        .map((name) => `${vmid}/${name}`),
    ),
    downloads: [...sim.model.tasks.values()].filter(
      (t) => t.type === "download" && (t.exitstatus === undefined || t.exitstatus === "OK"),
    ).length,
    snapshots: guestVms(sim).flatMap((vmid) =>
      Object.keys(sim.model.vms.get(vmid)?.snapshots ?? {}).map((name) => `${vmid}/${name}`),
    ),
  };
}

/** The first thing the inventory holds that the expected outcome does not allow. */
export function unexpected(
  found: Inventory,
  expected: Expected,
): { outcome: string; detail: string } | undefined {
  if (found.vms.length > expected.vms)
    return { outcome: "duplicate", detail: `VMs ${found.vms.join(", ")}` };
  if (found.templates.length > expected.templates)
    return { outcome: "duplicate", detail: `templates ${found.templates.join(", ")}` };
  if (found.downloads > 1)
    return { outcome: "duplicate", detail: `${found.downloads} image downloads` };
  if (found.snapshots.length > (expected.snapshots ?? 0))
    return { outcome: "duplicate", detail: `snapshots ${found.snapshots.join(", ")}` };
  if (found.vms.length < expected.vms)
    return { outcome: "error", detail: "no VM after the recovery" };
  if (found.snapshots.length < (expected.snapshots ?? 0))
    return { outcome: "error", detail: "no snapshot after the recovery" };
  if (found.templates.length < expected.templates)
    return { outcome: "error", detail: "no template after the recovery" };
  if (found.seeds.length > expected.vms)
    return { outcome: "leak", detail: `seeds ${found.seeds.join(", ")}` };
  if (found.images.length > expected.templates)
    return { outcome: "leak", detail: `images ${found.images.join(", ")}` };
  if (found.orphanDisks.length > 0)
    return { outcome: "leak", detail: `disks ${found.orphanDisks.join(", ")}` };
  if (found.updateSnapshots.length > 0)
    return { outcome: "leak", detail: `snapshots ${found.updateSnapshots.join(", ")}` };
  if (found.locked.length > 0)
    return { outcome: "leak", detail: `config lock on VM ${found.locked.join(", ")}` };
  return undefined;
}
