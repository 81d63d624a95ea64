import { requireAnyPriv, requirePrivs } from "../auth/check.js";
import type { SimContext } from "../context.js";
import {
  configMissing,
  dieError,
  NODE,
  paramError,
  permError,
  splitList,
  VMID,
  type Params,
  type Route,
} from "../http/index.js";
import {
  appliesLive,
  configDigest,
  fillMac,
  normaliseTags,
  parsePropertyString,
  unset,
} from "../model/vm-config.js";
import { ANY_CONFIG_PRIV, CONFIG_KEYS, configFamily, keyPrivilege } from "./config-schema.js";

const CONTROL = new Set([
  "node",
  "vmid",
  "delete",
  "revert",
  "force",
  "digest",
  "skiplock",
  "background_delay",
]);

/** Per-key checks that run before the update (check_vm_modify_config_perm). */
function checkKeyPermissions(sim: SimContext, tokenId: string, vmid: number, params: Params): void {
  const keys = Object.keys(params).filter((key) => !CONTROL.has(key));
  const deletes = splitList(String(params["delete"] ?? ""));
  checkKeyPrivileges(sim, tokenId, vmid, [...keys, ...deletes], params);
}

/** The privilege each config key needs on the VM, and SDN.Use on each NIC's bridge. */
export function checkKeyPrivileges(
  sim: SimContext,
  tokenId: string,
  vmid: number,
  keys: readonly string[],
  params: Params,
): void {
  for (const key of keys) {
    const value = params[key] === undefined ? undefined : String(params[key]);
    const priv = keyPrivilege(key, value);
    if (priv === "root") throw permError(`only root can set '${key}' config`);
    requirePrivs(sim, tokenId, `/vms/${vmid}`, [priv]);
    if (/^net\d+$/.test(key) && value !== undefined) {
      const bridge = parsePropertyString(value).opts["bridge"];
      if (bridge !== undefined)
        requirePrivs(sim, tokenId, `/sdn/zones/localnetwork/${bridge}`, ["SDN.Use"]);
    }
  }
}

/** Turns a request value into what PVE stores (MACs filled in, tags normalised, disks allocated). */
function storedValue(
  sim: SimContext,
  node: string,
  vmid: number,
  key: string,
  value: string | number,
): string | number {
  if (typeof value === "number") return value;
  if (/^net\d+$/.test(key)) return fillMac(value);
  if (key === "tags") return normaliseTags(value);
  const alloc = /^([a-z][a-z0-9\-_.]*):(\d+(?:\.\d+)?)(,.*)?$/i.exec(value);
  if (configFamily(key) !== undefined && alloc !== null && !/^(net|ipconfig)/.test(key)) {
    // `local-lvm:4` allocates a new 4 GiB volume, as PVE does for drive values with a size.
    const [, storage = "", size = "0", rest = ""] = alloc;
    if (sim.cluster.storageOn(node, storage) === undefined)
      throw dieError(`storage '${storage}' does not exist`);
    let n = 0;
    while (sim.cluster.volume(node, `${storage}:vm-${vmid}-disk-${n}`) !== undefined) n += 1;
    const volid = `${storage}:vm-${vmid}-disk-${n}`;
    const bytes = Number(size) * 1024 ** 3;
    sim.cluster.putVolume(node, {
      volid,
      storage,
      content: "images",
      format: "raw",
      size: bytes,
      ctime: Math.floor(Date.now() / 1000),
      vmid,
    });
    return `${volid}${rest},size=${size}G`;
  }
  const storage = /^([a-z][a-z0-9\-_.]*):/i.exec(value)?.[1];
  if (
    configFamily(key) !== undefined &&
    storage !== undefined &&
    sim.cluster.storageOn(node, storage) === undefined
  ) {
    throw dieError(`storage '${storage}' does not exist`);
  }
  return value;
}

/** The body of update_vm: runs under the VM's flock, synchronously (PUT) or in a task (POST). */
export async function updateConfig(sim: SimContext, params: Params): Promise<void> {
  const node = String(params["node"]);
  const vmid = Number(params["vmid"]);
  const release = await sim.flocks.acquire(vmid, true, 10_000);
  try {
    const vm = sim.cluster.vmOn(node, vmid);
    if (vm === undefined) throw configMissing(node, vmid);
    if (params["digest"] !== undefined && params["digest"] !== configDigest(vm)) {
      throw dieError("checksum mismatch (file change by other user?)");
    }
    const lock = vm.config["lock"];
    if (lock !== undefined) throw dieError(`VM is locked (${lock})`);
    const deletes = splitList(String(params["delete"] ?? "")).map((key) =>
      key === "cdrom" ? "ide2" : key,
    );
    for (const [key, value] of Object.entries(params)) {
      if (CONTROL.has(key)) continue;
      const target = key === "cdrom" ? "ide2" : key;
      const stored = storedValue(sim, node, vmid, target, value);
      if (vm.status === "running" && !appliesLive(target)) vm.pending[target] = stored;
      else vm.config[target] = stored;
    }
    for (const key of deletes) {
      if (vm.config[key] === undefined && vm.pending[key] === undefined) continue;
      if (vm.status === "running" && !appliesLive(key)) vm.pending[key] = null;
      else unset(vm.config, key);
    }
    sim.cluster.observe(vm);
    sim.changed();
  } finally {
    release();
  }
}

/** Synchronous checks shared by PUT and POST (before any lock is taken). */
function precheck(sim: SimContext, tokenId: string, params: Params): void {
  const node = String(params["node"]);
  const vmid = Number(params["vmid"]);
  checkKeyPermissions(sim, tokenId, vmid, params);
  const keys = Object.keys(params).filter((key) => !CONTROL.has(key));
  const deletes = splitList(String(params["delete"] ?? ""));
  if (params["force"] !== undefined && params["delete"] === undefined) {
    throw paramError({ force: "unable to use 'force' without 'delete'" });
  }
  for (const key of deletes) {
    if (CONFIG_KEYS[key] === undefined && configFamily(key) === undefined) {
      throw paramError({ delete: `unknown option '${key}'` });
    }
    if (keys.includes(key))
      throw paramError({ delete: `you can't use '-${key}' and -delete ${key}' at the same time` });
  }
  if (keys.length === 0 && deletes.length === 0 && params["revert"] === undefined) {
    throw dieError("no options specified");
  }
  if (sim.cluster.vmOn(node, vmid) === undefined) throw configMissing(node, vmid);
}

const CONFIG_PARAMS = {
  ...CONFIG_KEYS,
  node: NODE,
  vmid: VMID,
  delete: { type: "string", optional: true, format: "pve-configid-list" },
  revert: { type: "string", optional: true, format: "pve-configid-list" },
  force: { type: "boolean", optional: true },
  digest: { type: "string", optional: true, maxLength: 40 },
  skiplock: { type: "boolean", optional: true, rootOnly: true },
} as const;

const anyConfigPriv = (
  sim: SimContext,
  input: { tokenId: string; raw: Record<string, unknown> },
): void => requireAnyPriv(sim, input.tokenId, `/vms/${String(input.raw["vmid"])}`, ANY_CONFIG_PRIV);

export const qemuConfigRoutes: Route<SimContext>[] = [
  {
    method: "PUT",
    path: "/nodes/{node}/qemu/{vmid}/config",
    params: CONFIG_PARAMS,
    dynamicParam: configFamily,
    permission: anyConfigPriv,
    handler: async ({ sim, tokenId, params }) => {
      precheck(sim, tokenId, params);
      await updateConfig(sim, params);
      return null;
    },
  },
  {
    method: "POST",
    path: "/nodes/{node}/qemu/{vmid}/config",
    params: {
      ...CONFIG_PARAMS,
      background_delay: { type: "integer", optional: true, min: 1, max: 30 },
    },
    dynamicParam: configFamily,
    permission: anyConfigPriv,
    handler: async ({ sim, tokenId, params }) => {
      precheck(sim, tokenId, params);
      const vmid = String(params["vmid"]);
      const task = sim.tasks.start(
        String(params["node"]),
        "qmconfig",
        vmid,
        tokenId,
        async (ctx) => {
          await ctx.wait(1);
          await updateConfig(sim, params);
        },
      );
      const delay = params["background_delay"];
      if (delay === undefined) return task.upid;
      const deadline = Date.now() + Number(delay) * 1000;
      while (task.status === "running" && Date.now() < deadline) await sim.tasks.sleep(20);
      if (task.status === "running") return task.upid;
      if (task.exitstatus === "OK") return null;
      throw dieError(`failed to update VM ${vmid}: ${task.exitstatus ?? ""}`);
    },
  },
];
