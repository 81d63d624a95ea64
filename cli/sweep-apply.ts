/**
 * sweep's delete step, in the order that keeps every delete possible: VMs first (which may be a
 * template's linked clones), then templates, then images no template names, then seeds whose VM
 * is long gone. Each goes through the provider's own delete; a failure is a row, not a throw.
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
  templateItem,
  vmItem,
  type Orphans,
  type SweepItem,
} from "./sweep-items";
import { seedIsos } from "./sweep-scan";

/** Every orphan deleted (or skipped, or failed), in order. */
export async function deleteOrphans(
  ctx: OperationContext,
  orphans: Orphans,
  taskMs: number,
): Promise<SweepItem[]> {
  return [
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
  ];
}

const LOCKED = (lock: string) => `locked (${lock}): a task may still run on it; sweep again later`;

/** Stop, seeds on every node, destroy; a VM a task holds locked is left for a later sweep. */
export async function deleteVms(
  ctx: OperationContext,
  vms: Orphans["vms"],
  taskMs: number,
): Promise<SweepItem[]> {
  const items: SweepItem[] = [];
  for (const vm of vms) {
    if (vm.lock !== undefined) {
      items.push(vmItem(vm, "skipped", LOCKED(vm.lock)));
      continue;
    }
    try {
      await deleteMarkedVm(ctx, vm, taskMs);
      items.push(vmItem(vm, "deleted", "stopped, seeds deleted, destroyed"));
    } catch (error) {
      items.push(vmItem(vm, "failed", (error as Error).message));
    }
  }
  return items;
}

/** Each delete refuses while a linked clone is left (a skip), and takes the template's image. */
export async function deleteTemplates(
  ctx: OperationContext,
  templates: Orphans["templates"],
  taskMs: number,
): Promise<SweepItem[]> {
  const items: SweepItem[] = [];
  for (const t of templates) {
    if (t.lock !== undefined) {
      items.push(templateItem(t, "skipped", LOCKED(t.lock)));
      continue;
    }
    try {
      await deleteMarkedTemplate(ctx, t, taskMs);
      items.push(templateItem(t, "deleted", `destroyed, image ${t.image} deleted`));
    } catch (error) {
      const refused = hasCode(error, "CONFLICT");
      items.push(templateItem(t, refused ? "skipped" : "failed", (error as Error).message));
    }
  }
  return items;
}

export async function deleteImages(
  ctx: OperationContext,
  images: Orphans["images"],
  taskMs: number,
): Promise<SweepItem[]> {
  const items: SweepItem[] = [];
  for (const image of images) {
    try {
      await deleteOrphanImage(ctx, image, taskMs);
      items.push(imageItem(image, "deleted"));
    } catch (error) {
      items.push(imageItem(image, "failed", (error as Error).message));
    }
  }
  return items;
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
