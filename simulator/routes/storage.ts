import { hasPriv, requireAnyPriv, requirePrivs, storagePath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { dieError, NODE, paramError, STORAGE, type Route } from "../http/index.js";
import { CONTENT_TYPES } from "../model/defaults.js";
import { volumeOwner, volumePath } from "../model/storage-files.js";
import type { StorageSeed, Volume } from "../model/types.js";

/** The storage on the node, or PVE's error for a missing/unavailable one. */
export function storageOrDie(sim: SimContext, node: string, storage: string): StorageSeed {
  const def = sim.cluster.storageOn(node, storage);
  if (def !== undefined) return def;
  if (sim.cluster.storages.some((s) => s.storage === storage)) {
    throw dieError(`storage '${storage}' is not available on node '${node}'`);
  }
  throw dieError(`storage '${storage}' does not exist`);
}

/** Content.pm's real_volume_id: `volume` as `<storage>:<name>` or a bare name on `storage`. */
export function volumeIdOf(storage: string, volume: string): { volname: string; volid: string } {
  const colon = volume.indexOf(":");
  const volStorage = colon > 0 ? volume.slice(0, colon) : storage;
  if (volStorage !== storage)
    throw paramError({ volume: `storage ID mismatch (${volStorage} != ${storage})` });
  const volname = colon > 0 ? volume.slice(colon + 1) : volume;
  return { volname, volid: `${storage}:${volname}` };
}

/** A storage's state on a node, as both the storage index and `…/{storage}/status` report it. */
export function storageStatus(
  sim: SimContext,
  node: string,
  def: StorageSeed,
): Record<string, unknown> {
  const total = def.totalBytes ?? 100 * 1024 ** 3;
  const used = sim.cluster.volumesIn(node, def.storage).reduce((sum, v) => sum + v.size, 0);
  return {
    type: def.type,
    content: [...def.content].sort().join(","),
    shared: def.shared ? 1 : 0,
    active: 1,
    enabled: 1,
    total,
    used,
    avail: total - used,
    used_fraction: used / total,
  };
}

function contentRow(volume: Volume): Record<string, unknown> {
  const row: Record<string, unknown> = {
    volid: volume.volid,
    format: volume.format,
    size: volume.size,
    ctime: volume.ctime,
    content: volume.content,
  };
  if (volume.vmid !== undefined) {
    row["vmid"] = volume.vmid;
    row["used"] = volume.size;
  }
  return row;
}

export const storageRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/nodes/{node}/storage",
    params: {
      node: NODE,
      content: { type: "string", optional: true },
      enabled: { type: "boolean", optional: true },
      format: { type: "boolean", optional: true },
      storage: { type: "string", optional: true, format: "pve-storage-id" },
      target: { type: "string", optional: true, format: "pve-node" },
    },
    handler: ({ sim, tokenId, params }) => {
      const node = String(params["node"]);
      const wanted = params["content"] === undefined ? [] : String(params["content"]).split(",");
      return sim.cluster
        .storagesOn(node)
        .filter((s) => {
          const path = `/storage/${s.storage}`;
          if (
            !hasPriv(sim, tokenId, path, "Datastore.Audit") &&
            !hasPriv(sim, tokenId, path, "Datastore.AllocateSpace")
          )
            return false;
          if (params["storage"] !== undefined && s.storage !== params["storage"]) return false;
          const target = params["target"];
          if (
            target !== undefined &&
            sim.cluster.storageOn(String(target), s.storage) === undefined
          )
            return false;
          return wanted.every((c) => s.content.includes(c));
        })
        .map((s) => ({ storage: s.storage, ...storageStatus(sim, node, s) }));
    },
  },
  {
    method: "GET",
    path: "/nodes/{node}/storage/{storage}/content",
    params: {
      node: NODE,
      storage: STORAGE,
      content: {
        type: "string",
        optional: true,
        enum: CONTENT_TYPES,
      },
      vmid: { type: "integer", optional: true, format: "pve-vmid", min: 100, max: 999999999 },
    },
    permission: (sim, { tokenId, raw }) =>
      requireAnyPriv(sim, tokenId, storagePath(raw), [
        "Datastore.Audit",
        "Datastore.AllocateSpace",
      ]),
    handler: ({ sim, params }) => {
      const node = String(params["node"]);
      const storage = String(params["storage"]);
      storageOrDie(sim, node, storage);
      return (
        sim.cluster
          .volumesIn(node, storage)
          .filter((v) => params["content"] === undefined || v.content === params["content"])
          // ISO listings are skipped when a vmid is given.
          .filter((v) => params["vmid"] === undefined || v.vmid === params["vmid"])
          .sort((a, b) => a.volid.localeCompare(b.volid))
          .map(contentRow)
      );
    },
  },
  {
    method: "DELETE",
    path: "/nodes/{node}/storage/{storage}/content/{volume*}",
    params: {
      node: NODE,
      storage: { type: "string", optional: true, format: "pve-storage-id" },
      volume: { type: "string" },
      delay: { type: "integer", optional: true, min: 1, max: 30 },
    },
    permission: (sim, { tokenId, raw }) =>
      requirePrivs(sim, tokenId, storagePath(raw), ["Datastore.Allocate"]),
    handler: async ({ sim, tokenId, params }) => {
      const node = String(params["node"]);
      const storage = String(params["storage"]);
      const { volname, volid } = volumeIdOf(storage, String(params["volume"]));
      const def = storageOrDie(sim, node, storage);
      const owner = volumeOwner(volname);
      const id = owner === undefined ? storage : `${owner}@${storage}`;
      // No reference check: an ISO still in a stopped VM's ide2 is deleted all the same.
      const task = sim.tasks.start(node, "imgdel", id, tokenId, async (ctx) => {
        await ctx.wait(1);
        if (!sim.cluster.deleteVolume(node, volid)) {
          ctx.log(`disk image '${volumePath(def, volname)}' does not exist`);
        }
        sim.changed();
      });
      const delay = params["delay"];
      if (delay === undefined) return task.upid;
      const deadline = Date.now() + Number(delay) * 1000;
      while (task.status === "running" && Date.now() < deadline) await sim.tasks.sleep(20);
      if (task.status === "running") return task.upid;
      if (task.exitstatus === "OK") return null;
      throw dieError(task.exitstatus ?? "unexpected status");
    },
  },
];
