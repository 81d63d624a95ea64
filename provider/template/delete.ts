/**
 * delete, in order: refuse while linked clones of the template exist (naming them), else
 * destroy the template, then its downloaded image on every node that holds it. The image goes
 * last, so a failed destroy leaves both for the next delete; a template already gone leaves only
 * the image to delete.
 */
import type { OperationContext } from "../pve/context";
import { aboutVmOnce, hasCode, PermanentError } from "../pve/errors";
import { readTemplateMark } from "./mark";
import type { TemplateState } from "./state";

/** What a delete needs: a resource's state has it, and so has sweep from a template's mark. */
export type TemplateToDelete = Pick<
  TemplateState,
  "vmid" | "vmName" | "identityHash" | "imageVolid" | "importStorage" | "storage"
> & { readonly timeouts: { readonly taskMs: number } };

export async function deleteTemplate(
  ctx: OperationContext,
  state: TemplateToDelete,
): Promise<void> {
  try {
    await deleteInOrder(ctx, state);
  } catch (error) {
    // Every failure names the template's VM, whichever step (listing, image, task wait) it was.
    throw aboutVmOnce(error, { vmid: state.vmid }, `deleting template ${state.vmName}`);
  }
}

async function deleteInOrder(ctx: OperationContext, state: TemplateToDelete): Promise<void> {
  const budget = { budgetMs: state.timeouts.taskMs };
  const listed = await ctx.listVms({ fresh: true });
  const row = listed.find((vm) => vm.type === "qemu" && vm.vmid === state.vmid);
  if (row !== undefined) {
    const label = `template ${state.vmName} (VM ${state.vmid}) on node ${row.node}`;
    const config = await ctx.api.vmConfig(row.node, row.vmid);
    if (readTemplateMark(config.description)?.id !== state.identityHash) {
      throw new PermanentError(
        "NOT_OURS",
        `${label} is not the template this resource created (its mark differs); nothing was ` +
          "touched. If it was replaced by hand, remove the resource with `pulumi state delete`.",
        { node: row.node, vmid: row.vmid },
      );
    }
    const clones = await linkedClones(ctx, row.node, state);
    if (clones.length > 0) {
      const names = clones.map((vmid) => {
        const name = listed.find((vm) => vm.vmid === vmid)?.name;
        return name === undefined ? `VM ${vmid}` : `VM ${vmid} (${name})`;
      });
      throw new PermanentError(
        "CONFLICT",
        `${label} still has linked clones: ${names.join(", ")}. Their disks are built on the ` +
          "template's base volume: delete them (or move them to full clones with a disk move) " +
          "first, then run the command again. Nothing was deleted.",
        { node: row.node, vmid: row.vmid },
      );
    }
    ctx.progress(`${label}: destroying`);
    try {
      const upid = await ctx.api.destroyVm(row.node, row.vmid);
      await ctx.waitForTask(row.node, upid, { ...budget, step: `${label}: destroying` });
    } catch (error) {
      // Gone midway: an earlier destroy whose answer was lost (retried, or a failed run's) did it.
      if (!hasCode(error, "NOT_FOUND") && !goneInTask(error)) throw error;
    }
  }
  await deleteImage(ctx, state, state.timeouts.taskMs);
}

/**
 * Deletes the downloaded image wherever it is: a node-local import storage holds it on the node
 * that downloaded it, which is not the template's node any more once the template was migrated;
 * a shared one holds it once for the cluster. So every online node's import storage is looked
 * at, a shared storage once. A node that is down is not: the image there is left for the next
 * delete, or for `sweep`.
 */
export async function deleteImage(
  ctx: OperationContext,
  image: { readonly imageVolid: string; readonly importStorage: string },
  taskMs: number,
): Promise<void> {
  const seenShared = new Set<string>();
  for (const node of await ctx.api.nodes()) {
    if (node.status !== "online") continue;
    const storage = (await ctx.api.nodeStorages(node.node)).find(
      (s) => s.storage === image.importStorage && s.enabled && s.active,
    );
    if (storage === undefined || seenShared.has(storage.storage)) continue;
    if (storage.shared) seenShared.add(storage.storage);
    const volumes = await ctx.api.storageContent(node.node, storage.storage, "import");
    if (!volumes.some((volume) => volume.volid === image.imageVolid)) continue;
    ctx.progress(`${image.imageVolid} on node ${node.node}: deleting`);
    try {
      const upid = await ctx.api.deleteVolume(node.node, storage.storage, image.imageVolid);
      if (upid !== null) {
        await ctx.waitForTask(node.node, upid, {
          budgetMs: taskMs,
          step: `deleting ${image.imageVolid} on node ${node.node}`,
        });
      }
    } catch (error) {
      if (!hasCode(error, "NOT_FOUND") && !goneInTask(error)) throw error;
    }
  }
}

/** The VMIDs whose disks are linked clones of the template's base volumes, from the disk storage. */
async function linkedClones(
  ctx: OperationContext,
  node: string,
  state: TemplateToDelete,
): Promise<number[]> {
  const volumes = await ctx.api.storageContent(node, state.storage, "images");
  const prefix = `${state.storage}:base-${state.vmid}-disk-`;
  const vmids = volumes
    .filter((v) => v.volid.startsWith(prefix) && v.volid.includes("/"))
    .map((v) => Number(/\/vm-(\d+)-disk-/.exec(v.volid)?.[1]))
    .filter((vmid) => Number.isInteger(vmid));
  return [...new Set(vmids)].sort((a, b) => a - b);
}

function goneInTask(error: unknown): boolean {
  return hasCode(error, "TASK_FAILED") && error.context.taskErrorCode === "NOT_FOUND";
}
