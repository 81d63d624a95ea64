/**
 * One storage's status and one volume's attributes: pve-storage `PVE/API2/Storage/Status.pm`
 * (`read_status`) and `PVE/API2/Storage/Content.pm` (`info`).
 */
import { requireAnyPriv, storagePath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { dieError, NODE, STORAGE, type Route } from "../http/index.js";
import { volumePath } from "../model/storage-files.js";
import { storageOrDie, storageStatus, volumeIdOf } from "./storage.js";

const READ_PRIVS = ["Datastore.Audit", "Datastore.AllocateSpace"] as const;

export const storageStatusRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/nodes/{node}/storage/{storage}/status",
    params: { node: NODE, storage: STORAGE },
    permission: (sim, { tokenId, raw }) =>
      requireAnyPriv(sim, tokenId, storagePath(raw), READ_PRIVS),
    handler: ({ sim, params }) => {
      const node = String(params["node"]);
      const def = storageOrDie(sim, node, String(params["storage"]));
      // read_status returns storage_info's entry; only the index adds `used_fraction`.
      const { used_fraction: _fraction, ...status } = storageStatus(sim, node, def);
      return status;
    },
  },
  {
    method: "GET",
    path: "/nodes/{node}/storage/{storage}/content/{volume*}",
    params: {
      node: NODE,
      storage: { type: "string", optional: true, format: "pve-storage-id" },
      volume: { type: "string" },
    },
    permission: (sim, { tokenId, raw }) =>
      requireAnyPriv(sim, tokenId, storagePath(raw), READ_PRIVS),
    handler: ({ sim, params }) => {
      const node = String(params["node"]);
      const storage = String(params["storage"]);
      const { volname, volid } = volumeIdOf(storage, String(params["volume"]));
      const def = storageOrDie(sim, node, storage);
      const volume = sim.cluster.volume(node, volid);
      if (volume === undefined) throw dieError(`file_size_info on '${volid}' failed`);
      return {
        path: volumePath(def, volname),
        size: volume.size,
        used: volume.size,
        format: volume.format,
      };
    },
  },
];
