/**
 * Resource pools: pve-manager `PVE/API2/Pool.pm` (`index`, `create_pool`, `read_pool`,
 * `update_pool`, `delete_pool`). Changes run under PVE's user.cfg lock, whose error wrapper
 * prefixes the failure (`create pool failed: …`).
 */
import { requireAnyPriv, requirePrivs } from "../auth/check.js";
import type { SimContext } from "../context.js";
import {
  dieError,
  paramError,
  splitList,
  UNKNOWN_PROPERTY,
  type Params,
  type RawParams,
  type Route,
} from "../http/index.js";
import type { ResourcePool } from "../model/resource-pools.js";
import { storageRows, vmRows } from "./cluster.js";
import { lockedChange } from "./locked-change.js";

const POOLID = { type: "string", pattern: /^[A-Za-z0-9.\-_]+$/ } as const;

const allocate = (sim: SimContext, input: { tokenId: string; raw: RawParams }): void =>
  requirePrivs(sim, input.tokenId, `/pool/${String(input.raw["poolid"])}`, ["Pool.Allocate"]);

function existing(sim: SimContext, poolid: string): ResourcePool {
  const pool = sim.cluster.resourcePools.get(poolid);
  if (pool === undefined) throw new Error(`pool '${poolid}' does not exist`);
  return pool;
}

/** read_pool's members: VM rows as `/cluster/resources` has them, one row per storage. */
function members(sim: SimContext, tokenId: string, pool: ResourcePool, type: unknown): unknown[] {
  const vms = vmRows(sim, tokenId, Date.now()).filter((row) => pool.vms.has(Number(row["vmid"])));
  const firstNode = [...sim.cluster.nodes.keys()][0];
  const storages = storageRows(sim, tokenId).filter(
    (row) => pool.storage.has(String(row["storage"])) && row["node"] === firstNode,
  );
  if (type === "qemu") return vms;
  if (type === "storage") return storages;
  if (type === "lxc") return [];
  return [...vms, ...storages];
}

function view(sim: SimContext, tokenId: string, pool: ResourcePool, type: unknown): object {
  return {
    ...(pool.comment === undefined ? {} : { comment: pool.comment }),
    members: members(sim, tokenId, pool, type),
  };
}

/** RPCEnvironment::check_perm_modify guards each member added or removed. */
function updateMembers(sim: SimContext, tokenId: string, pool: ResourcePool, params: Params): void {
  const pools = sim.cluster.resourcePools;
  const remove = params["delete"] === 1;
  for (const vmid of splitList(String(params["vms"] ?? "")).map(Number)) {
    requireAnyPriv(sim, tokenId, `/vms/${vmid}`, ["Permissions.Modify", "VM.Allocate"]);
    const current = pools.poolOf(vmid);
    if (remove) {
      if (current !== pool.poolid) throw new Error(`VM ${vmid} is not a pool member`);
      pool.vms.delete(vmid);
      continue;
    }
    if (current === pool.poolid) throw new Error(`VM ${vmid} is already a pool member`);
    if (current !== undefined && params["allow-move"] !== 1)
      throw new Error(`VM ${vmid} belongs to pool '${current}'`);
    if (!sim.cluster.vms.has(vmid)) throw new Error(`VM ${vmid} does not exist`);
    pools.forgetVm(vmid);
    pool.vms.add(vmid);
  }
  for (const storage of splitList(String(params["storage"] ?? ""))) {
    requireAnyPriv(sim, tokenId, `/storage/${storage}`, [
      "Permissions.Modify",
      "Datastore.Allocate",
    ]);
    if (remove) {
      if (!pool.storage.delete(storage))
        throw new Error(`Storage '${storage}' is not a pool member`);
    } else {
      if (pool.storage.has(storage))
        throw new Error(`Storage '${storage}' is already a pool member`);
      pool.storage.add(storage);
    }
  }
}

export const poolRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/pools",
    params: {
      poolid: { ...POOLID, optional: true },
      type: { type: "string", optional: true, enum: ["qemu", "lxc", "storage"] },
    },
    handler: ({ sim, tokenId, params }) =>
      sim.cluster.resourcePools
        .list()
        .filter((pool) => params["poolid"] === undefined || pool.poolid === params["poolid"])
        // index lists the pools the caller may allocate in, silently skipping the others.
        .filter((pool) =>
          ["Pool.Allocate", "Pool.Audit", "VM.Allocate"].some((p) =>
            sim.tokens.has(tokenId, `/pool/${pool.poolid}`, p),
          ),
        )
        .map((pool) => ({
          poolid: pool.poolid,
          ...(params["poolid"] === undefined
            ? pool.comment === undefined
              ? {}
              : { comment: pool.comment }
            : view(sim, tokenId, pool, params["type"])),
        })),
  },
  {
    method: "POST",
    path: "/pools",
    params: { poolid: POOLID, comment: { type: "string", optional: true, maxLength: 4096 } },
    permission: allocate,
    handler: ({ sim, params }) =>
      lockedChange("create pool failed", () => {
        const poolid = String(params["poolid"]);
        if (sim.cluster.resourcePools.get(poolid) !== undefined)
          throw new Error(`pool '${poolid}' already exists`);
        const comment = params["comment"];
        sim.cluster.resourcePools.create(
          poolid,
          comment === undefined ? undefined : String(comment),
        );
        sim.changed();
      }),
  },
  {
    method: "GET",
    path: "/pools/{poolid}",
    params: {
      poolid: POOLID,
      type: { type: "string", optional: true, enum: ["qemu", "lxc", "storage"] },
    },
    permission: (sim, { tokenId, raw }) =>
      requireAnyPriv(sim, tokenId, `/pool/${String(raw["poolid"])}`, [
        "Pool.Audit",
        "Pool.Allocate",
      ]),
    handler: ({ sim, tokenId, params }) => {
      const poolid = String(params["poolid"]);
      const pool = sim.cluster.resourcePools.get(poolid);
      if (pool === undefined) throw dieError(`pool '${poolid}' does not exist`);
      return view(sim, tokenId, pool, params["type"]);
    },
  },
  {
    method: "PUT",
    path: "/pools/{poolid}",
    params: {
      poolid: POOLID,
      comment: { type: "string", optional: true, maxLength: 4096 },
      vms: { type: "string", optional: true, pattern: /^(?:[1-9]\d{2,8}(?:[,;\s]+|$))*$/ },
      storage: { type: "string", optional: true },
      delete: { type: "boolean", optional: true },
      "allow-move": { type: "boolean", optional: true },
    },
    permission: allocate,
    handler: ({ sim, tokenId, params }) => {
      if (params["allow-move"] !== undefined && !sim.options.profile.poolAllowMove)
        throw paramError({ "allow-move": UNKNOWN_PROPERTY });
      return lockedChange("update pools failed", () => {
        const pool = existing(sim, String(params["poolid"]));
        if (params["comment"] !== undefined) pool.comment = String(params["comment"]);
        updateMembers(sim, tokenId, pool, params);
        sim.changed();
      });
    },
  },
  {
    method: "DELETE",
    path: "/pools/{poolid}",
    params: { poolid: POOLID },
    permission: allocate,
    handler: ({ sim, params }) =>
      lockedChange("delete pool failed", () => {
        const pool = existing(sim, String(params["poolid"]));
        const [vmid] = [...pool.vms].filter((id) => sim.cluster.vms.has(id)).sort((a, b) => a - b);
        if (vmid !== undefined)
          throw new Error(`pool '${pool.poolid}' is not empty (contains VM ${vmid})`);
        const [storage] = [...pool.storage].sort();
        if (storage !== undefined)
          throw new Error(`pool '${pool.poolid}' is not empty (contains storage '${storage}')`);
        sim.cluster.resourcePools.delete(pool.poolid);
        sim.changed();
      }),
  },
];
