/**
 * The NoCloud seed on PVE: build it, upload it once (its name is content-addressed, so an
 * unchanged seed is found and not uploaded again), and delete it on every node that has the ISO
 * storage (docs/design.md, "Ordered delete"): a refused privilege fails the call,
 * a node that is down or lacks the storage is skipped.
 */
import type { OperationContext } from "../../pve/context";
import { PermanentError, aboutVm, isPermanent, isTransient, vmLabel } from "../../pve/errors";
import type { VmConfig } from "../../pve/api/proxmox-api";
import type { Seen } from "../spec/field";
import { nicKey, type VmNics } from "../spec/network";
import { cdromVolid } from "../state/vm-facts";
import type { ConvergeRun } from "./converge-run";
import { buildVmSeed, isSeedOf, type VmSeed, type VmSeedRequest } from "./vm-seed";

export type { VmSeed, VmSeedRequest };
export { buildVmSeed };

/** Uploads the seed to the node's ISO storage unless it is already there; returns its volid. */
export async function ensureSeedUploaded(
  ctx: OperationContext,
  where: {
    node: string;
    vmid: number;
    isoStorage: string;
    /** The VM's identity: its other seeds on this storage are stale and deleted. */
    identity?: string;
    /** The seed the VM has attached now: kept, as converge deletes it once the new one is in. */
    attached?: string | undefined;
  },
  seed: VmSeed,
  budgetMs: number,
): Promise<string> {
  const volid = `${where.isoStorage}:iso/${seed.filename}`;
  const present = await ctx.api
    .storageContent(where.node, where.isoStorage, "iso")
    .catch((error) => {
      throw aboutVm(error, where, `listing the seeds on storage ${where.isoStorage}`);
    });
  if (!present.some((v) => v.volid === volid)) {
    await upload(ctx, where, seed, budgetMs).catch((error) => {
      throw aboutVm(error, where, `uploading seed ${seed.filename} to ${where.isoStorage}`);
    });
  }
  if (where.identity !== undefined) {
    const identity = where.identity;
    const stale = present
      .map((v) => v.volid)
      .filter((v) => v !== volid && v !== where.attached && isSeedOf(v, identity));
    await deleteStaleSeeds(ctx, where, stale, budgetMs);
  }
  return volid;
}

async function upload(
  ctx: OperationContext,
  where: { node: string; vmid: number; isoStorage: string },
  seed: VmSeed,
  budgetMs: number,
): Promise<void> {
  ctx.progress(
    `VM ${where.vmid} on ${where.node}: uploading seed ${seed.filename} ` +
      `(${Math.ceil((seed.bytes.length + (seed.zeroTail ?? 0)) / 1024)} KiB) to ${where.isoStorage}`,
  );
  const upid = await ctx.api.uploadIso(where.node, where.isoStorage, seed);
  await ctx.waitForTask(where.node, upid, {
    budgetMs,
    step: `VM ${where.vmid} on ${where.node}: uploading seed ${seed.filename}`,
  });
}

/**
 * Seeds of this identity that no VM uses any more: left by a VM that was deleted outside Pulumi
 * and then recreated (a new MAC gives a new seed, so a new name). Found in the listing the
 * upload check already made, so this costs no extra call. A refusal or an unreachable node only
 * warns: the VM works without the clean-up, and `pulumi-proxmox sweep` lists what is left.
 */
async function deleteStaleSeeds(
  ctx: OperationContext,
  where: { node: string; vmid: number; isoStorage: string },
  stale: readonly string[],
  budgetMs: number,
): Promise<void> {
  for (const volid of stale) {
    const step = `VM ${where.vmid} on ${where.node}: deleting stale seed ${volid}`;
    try {
      ctx.progress(step);
      const upid = await ctx.api.deleteVolume(where.node, where.isoStorage, volid);
      if (upid) await ctx.waitForTask(where.node, upid, { budgetMs, step });
    } catch (error) {
      if (!isPermanent(error) && !isTransient(error)) throw error;
      if (isPermanent(error) && error.code === "NOT_FOUND") continue;
      ctx.warn(
        `Could not delete the stale seed ${volid} of VM ${where.vmid} on node ${where.node}: ` +
          `${error.message.replace(/\.+$/, "")}. \`pulumi-proxmox sweep\` lists it.`,
      );
    }
  }
}

/** The seed converge attaches: the one attached before, and the one uploaded now. */
export interface ConvergedSeed {
  readonly previous: string | undefined;
  readonly volid: string;
}

/**
 * Builds the VM's seed for the NICs' real MACs, so network-config can match each by address, and
 * uploads it unless it is already on the ISO storage.
 */
export async function uploadSeed(
  { ctx, vm, desired, naming, budgetMs }: ConvergeRun,
  config: VmConfig,
  nics: VmNics,
  seen: Seen,
): Promise<ConvergedSeed> {
  const previous = cdromVolid(config.ide2);
  const seed = buildVmSeed({
    identity: naming.identity,
    vmName: naming.vmName,
    macs: nics.nics.map((_, i) => seen.macs[nicKey(i)]),
    nics,
    cloudInit: desired.cloudInit,
  });
  const where = { ...vm, isoStorage: desired.isoStorage, identity: naming.identity };
  const volid = await ensureSeedUploaded(ctx, { ...where, attached: previous }, seed, budgetMs);
  return { previous, volid };
}

/** The old seed goes only once the new one is attached. */
export async function dropOldSeed(
  { ctx, vm, desired, naming, budgetMs }: ConvergeRun,
  seed: ConvergedSeed,
): Promise<void> {
  if (seed.previous === undefined || seed.previous === seed.volid) return;
  const owner = { identity: naming.identity, vmid: vm.vmid, isoStorage: desired.isoStorage };
  await deleteSeedsEverywhere(ctx, owner, budgetMs, seed.volid);
}

/**
 * Deletes this VM's seed ISOs (every file its identity owns, but `keep`) on every node that has
 * the ISO storage. A shared storage is the same on every node and is cleaned once.
 */
export async function deleteSeedsEverywhere(
  ctx: OperationContext,
  owner: { identity: string; vmid: number; isoStorage: string },
  budgetMs: number,
  keep?: string,
): Promise<void> {
  const nodes = await ctx.api.nodes().catch((error) => {
    throw aboutVm(error, owner, "listing the nodes to delete its seed ISOs from");
  });
  const cleanedShared = new Set<string>();
  for (const { node, status } of nodes) {
    if (status !== "online") continue;
    try {
      const storages = await ctx.api.nodeStorages(node);
      const storage = storages.find((s) => s.storage === owner.isoStorage);
      if (!storage || !storage.enabled || !storage.content.includes("iso")) continue;
      if (storage.shared && cleanedShared.has(storage.storage)) continue;
      if (storage.shared) cleanedShared.add(storage.storage);

      const volumes = await ctx.api.storageContent(node, owner.isoStorage, "iso");
      for (const volume of volumes) {
        if (volume.volid === keep || !isSeedOf(volume.volid, owner.identity)) continue;
        ctx.progress(`${vmLabel({ vmid: owner.vmid, node })}: deleting seed ${volume.volid}`);
        const upid = await ctx.api.deleteVolume(node, owner.isoStorage, volume.volid);
        if (upid) {
          await ctx.waitForTask(node, upid, {
            budgetMs,
            step: `${vmLabel({ vmid: owner.vmid, node })}: deleting seed ${volume.volid}`,
          });
        }
      }
    } catch (error) {
      if (isPermanent(error) && error.code !== "NOT_FOUND") {
        throw new PermanentError(
          error.code,
          // The classified message ends with its own full stop.
          `Could not delete the seed ISO of VM ${owner.vmid} on node ${node}: ` +
            `${error.message.replace(/\.+$/, "")}. ` +
            "The VM is kept (stopped) so the next destroy can finish both.",
          { ...error.context, node, vmid: owner.vmid },
          { cause: error },
        );
      }
      // A node that is down or busy cannot hold our only copy of a shared seed, and a local
      // seed there is cleaned by the next delete or by `pulumi-proxmox sweep`.
      if (isTransient(error)) {
        ctx.warn(`Skipped seed clean-up on node ${node} for VM ${owner.vmid}: ${error.message}`);
        continue;
      }
      if (!isPermanent(error)) throw error;
    }
  }
}
