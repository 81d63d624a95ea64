/**
 * sweep's delete step, in the order that keeps every delete possible: left-over snapshots of
 * owned VMs, then VMs (which may be a template's linked clones), then templates, then images no
 * template names, then seeds whose VM is long gone. Each goes through the provider's own delete; a failure is a row, not a throw.
 */
import {
  deleteMarkedTemplate,
  deleteMarkedVm,
  deleteOrphanImage,
  hasCode,
  type OperationContext,
} from "../provider/entry";
import {
  imageItem,
  seedItem,
  snapshotItem,
  templateItem,
  vmItem,
  type Orphans,
  type SweepItem,
} from "./sweep-items";
import { seedIsos } from "./sweep-scan";
import { removeSnapshot } from "./sweep-snapshots";

/** Every orphan deleted (or skipped, or failed), in order. */
export async function deleteOrphans(
  ctx: OperationContext,
  orphans: Orphans,
  taskMs: number,
): Promise<SweepItem[]> {
  return [
    ...(await deleteEach(orphans.snapshots, {
      remove: (snapshot) => removeSnapshot(ctx, snapshot, taskMs),
      row: snapshotItem,
      done: () => "deleted; the VM keeps its current state",
    })),
    ...(await deleteVms(ctx, orphans.vms, taskMs)),
    ...(await deleteTemplates(ctx, orphans.templates, taskMs)),
    ...(await deleteImages(ctx, orphans.images, taskMs)),
    ...(await deleteSeeds(ctx, orphans.seeds, taskMs)),
  ];
}

/** The rows of a dry run: every orphan, nothing deleted. */
export function listOrphans(orphans: Orphans): SweepItem[] {
  return [
    ...orphans.vms.map((vm) => vmItem(vm, "orphan")),
    ...orphans.seeds.map((seed) => seedItem(seed, "orphan")),
    ...orphans.templates.map((t) => templateItem(t, "orphan")),
    ...orphans.images.map((image) => imageItem(image, "orphan")),
    ...orphans.snapshots.map((snapshot) => snapshotItem(snapshot, "orphan")),
  ];
}

type Action = SweepItem["action"];

/** How one kind of orphan is deleted and reported. */
interface Deleter<T> {
  readonly remove: (orphan: T) => Promise<void>;
  readonly row: (orphan: T, action: Action, detail?: string) => SweepItem;
  /** The detail of a deleted one; default: the row's own. */
  readonly done?: ((orphan: T) => string) | undefined;
  /** An error the delete refuses with on purpose (a skip, not a failure). */
  readonly refusal?: "CONFLICT" | undefined;
}

/**
 * Deletes each orphan in turn; one a task holds locked is left for a later sweep, and a failure
 * is its row, not the end of the sweep.
 */
async function deleteEach<T extends object>(
  orphans: readonly T[],
  deleter: Deleter<T>,
): Promise<SweepItem[]> {
  const items: SweepItem[] = [];
  for (const orphan of orphans) {
    const lock = (orphan as { readonly lock?: string | undefined }).lock;
    if (lock !== undefined) {
      const why = `locked (${lock}): a task may still run on it; sweep again later`;
      items.push(deleter.row(orphan, "skipped", why));
      continue;
    }
    try {
      await deleter.remove(orphan);
      items.push(deleter.row(orphan, "deleted", deleter.done?.(orphan)));
    } catch (error) {
      const refused = deleter.refusal !== undefined && hasCode(error, deleter.refusal);
      items.push(deleter.row(orphan, refused ? "skipped" : "failed", (error as Error).message));
    }
  }
  return items;
}

/** Stop, seeds on every node, destroy. */
export function deleteVms(
  ctx: OperationContext,
  vms: Orphans["vms"],
  taskMs: number,
): Promise<SweepItem[]> {
  return deleteEach(vms, {
    remove: (vm) => deleteMarkedVm(ctx, vm, taskMs),
    row: vmItem,
    done: () => "stopped, seeds deleted, destroyed",
  });
}

/** Each delete refuses while a linked clone is left (a skip), and takes the template's image. */
export function deleteTemplates(
  ctx: OperationContext,
  templates: Orphans["templates"],
  taskMs: number,
): Promise<SweepItem[]> {
  return deleteEach(templates, {
    remove: (t) => deleteMarkedTemplate(ctx, t, taskMs),
    row: templateItem,
    done: (t) => `destroyed, image ${t.image} deleted`,
    refusal: "CONFLICT",
  });
}

export function deleteImages(
  ctx: OperationContext,
  images: Orphans["images"],
  taskMs: number,
): Promise<SweepItem[]> {
  return deleteEach(images, {
    remove: (image) => deleteOrphanImage(ctx, image, taskMs),
    row: imageItem,
  });
}

/** The seeds left once the VMs are gone (a VM's delete removes its own): those of VMs long gone. */
export async function deleteSeeds(
  ctx: OperationContext,
  seeds: Orphans["seeds"],
  taskMs: number,
): Promise<SweepItem[]> {
  const remaining = new Set((await seedIsos(ctx.api)).map((seed) => `${seed.node}/${seed.volid}`));
  const items: SweepItem[] = [];
  for (const seed of seeds) {
    if (!remaining.has(`${seed.node}/${seed.volid}`)) {
      items.push(seedItem(seed, "deleted", "with its VM"));
      continue;
    }
    try {
      ctx.progress(`deleting ${seed.volid} on ${seed.node}`);
      const upid = await ctx.api.deleteVolume(seed.node, seed.storage, seed.volid);
      if (upid) {
        await ctx.waitForTask(seed.node, upid, {
          budgetMs: taskMs,
          step: `deleting ${seed.volid}`,
        });
      }
      items.push(seedItem(seed, "deleted"));
    } catch (error) {
      items.push(seedItem(seed, "failed", (error as Error).message));
    }
  }
  return items;
}
