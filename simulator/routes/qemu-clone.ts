import { isSharedStorage, writeDisks, type DiskCopy } from "../model/storage-io.js";
import { randomUUID } from "node:crypto";
import { requireBridgeAccess, requirePrivs } from "../auth/check.js";
import type { SimContext } from "../context.js";
import {
  configNotFound,
  dieError,
  NODE,
  paramError,
  permError,
  VMID,
  type Params,
  type Route,
} from "../http/index.js";
import { Cluster } from "../model/cluster.js";
import { isCloudinitVolume } from "../model/drive-format.js";
import { isBaseVolume } from "../model/linked-clones.js";
import { supportsLinkedClones } from "../model/storage-files.js";
import type { VmConfig, VmRecord } from "../model/types.js";
import { driveVolume, DRIVE_KEY, isCdrom, withNewMac } from "../model/vm-config.js";

/** Source drives that hold a volume: [key, volid, isCdrom]. */
function sourceVolumes(config: VmConfig): [string, string, boolean][] {
  const out: [string, string, boolean][] = [];
  for (const [key, value] of Object.entries(config)) {
    const volid = DRIVE_KEY.test(key) ? driveVolume(String(value)) : undefined;
    if (volid !== undefined) out.push([key, volid, isCdrom(String(value))]);
  }
  return out;
}

/** clone_vm's synchronous checks, in PVE's order; returns the resolved `full` flag. */
function precheck(
  sim: SimContext,
  tokenId: string,
  params: Params,
): { source: VmRecord; full: boolean } {
  const node = String(params["node"]);
  const vmid = Number(params["vmid"]);
  const newid = Number(params["newid"]);
  const source = sim.cluster.vmOn(node, vmid);
  if (source === undefined) throw configNotFound(node, vmid);
  if (source.config["lock"] !== undefined)
    throw dieError(`VM is locked (${source.config["lock"]})`);
  if (sim.cluster.vmOn(node, newid) !== undefined) {
    throw dieError(`unable to create VM ${newid}: config file already exists`);
  }
  const isTemplate = source.config["template"] === 1;
  const full = params["full"] === undefined ? !isTemplate : params["full"] === 1;
  // clone_vm dies (a 500), it does not raise a parameter error.
  if (!full && params["storage"] !== undefined)
    throw dieError("parameter 'storage' not allowed for linked clones");
  if (!full && params["format"] !== undefined)
    throw dieError("parameter 'format' not allowed for linked clones");
  const target = params["target"] === undefined ? undefined : String(params["target"]);
  if (target !== undefined && !sim.cluster.nodes.has(target))
    throw dieError(`no such cluster node '${target}'`);
  const storage = params["storage"] === undefined ? undefined : String(params["storage"]);
  if (storage !== undefined) {
    const def = sim.cluster.storageOn(target ?? node, storage);
    if (def === undefined) throw dieError(`storage '${storage}' does not exist`);
    if (!def.content.includes("images"))
      throw paramError({ storage: `storage '${storage}' does not support vm images` });
    if (target !== undefined && target !== node && !def.shared)
      throw dieError(`can't clone to non-shared storage '${storage}'`);
  }
  const volumes = sourceVolumes(source.config);
  if (target !== undefined && target !== node) {
    for (const [, volid] of volumes) {
      if (sim.cluster.storageOn(node, volid.split(":")[0] ?? "")?.shared !== true) {
        throw dieError(`can't clone VM to node '${target}' (VM uses local storage)`);
      }
    }
  }
  for (const [key, volid, cdrom] of volumes) {
    if (cdrom) continue;
    // volume_has_feature('clone'): only a base volume, on a storage that can clone it.
    const def = sim.cluster.storageOn(node, volid.split(":")[0] ?? "");
    if (!full && (!isBaseVolume(volid) || !supportsLinkedClones(def)))
      throw dieError(`Linked clone feature is not supported for '${volid}' (${key})`);
    requirePrivs(sim, tokenId, `/storage/${storage ?? volid.split(":")[0] ?? ""}`, [
      "Datastore.AllocateSpace",
    ]);
  }
  for (const [key, value] of Object.entries(source.config)) {
    if (/^net\d+$/.test(key)) requireBridgeAccess(sim, tokenId, String(value));
  }
  return { source, full };
}

/** The disks a clone allocates: a full clone copies each to the target storage. */
function cloneDisks(
  sim: SimContext,
  node: string,
  source: VmRecord,
  params: Params,
  full: boolean,
): DiskCopy[] {
  return sourceVolumes(source.config)
    .filter(([, , cdrom]) => !cdrom)
    .map(([, volid]) => ({
      storage: full
        ? String(params["storage"] ?? volid.split(":")[0])
        : (volid.split(":")[0] ?? ""),
      bytes: sim.cluster.volume(node, volid)?.size ?? 0,
    }));
}

/**
 * clone_disk gives the copy a cloud-init volume of its own, `vm-<newid>-cloudinit` on the target
 * storage, regenerated rather than copied.
 */
function cloneCloudinit(
  sim: SimContext,
  node: string,
  volid: string,
  newid: number,
  target: string | number | undefined,
): string {
  const [storage = "", volname = ""] = volid.split(":");
  const into = target === undefined ? storage : String(target);
  const suffix = /\.(\w+)$/.exec(volname)?.[0] ?? "";
  const copy = `${into}:vm-${newid}-cloudinit${suffix}`;
  const source = sim.cluster.volume(node, volid);
  sim.cluster.putVolume(node, {
    volid: copy,
    storage: into,
    content: "images",
    format: source?.format ?? "raw",
    size: source?.size ?? 4 * 1024 * 1024,
    ctime: Math.floor(Date.now() / 1000),
    vmid: newid,
  });
  return `${copy},media=cdrom`;
}

/**
 * The format of a cloned disk: a full clone's is the one asked for, else the source's; a linked
 * clone on a file-based storage is a qcow2 overlay on its base (pve-storage `Plugin.pm`
 * `clone_image`: `qemu-img create -b <base> -f qcow2`), elsewhere the storage's own volume.
 */
function cloneFormat(
  sim: SimContext,
  node: string,
  storage: string,
  full: boolean,
  format: string | number | undefined,
): string {
  const type = sim.cluster.storageOn(node, storage)?.type ?? "";
  if (!full && ["dir", "nfs", "cifs", "glusterfs"].includes(type)) return "qcow2";
  return String(format ?? "raw");
}

/** The final config: options copied, new MACs/uuid, new disks, name, no template flag. */
function cloneConfig(
  sim: SimContext,
  node: string,
  source: VmRecord,
  newid: number,
  params: Params,
  full: boolean,
): VmConfig {
  const config: VmConfig = {};
  let diskIndex = 0;
  for (const [key, value] of Object.entries(source.config)) {
    // clone_vm copies neither the template flag, the lock, unused disks nor snapshot state.
    if (key === "template" || key === "lock" || key === "parent" || /^unused\d+$/.test(key))
      continue;
    const text = String(value);
    const volid = DRIVE_KEY.test(key) ? driveVolume(text) : undefined;
    if (volid !== undefined && isCloudinitVolume(volid)) {
      config[key] = cloneCloudinit(sim, node, volid, newid, full ? params["storage"] : undefined);
    } else if (volid !== undefined && !isCdrom(text)) {
      const [srcStorage = "", volname = ""] = volid.split(":");
      const storage = full ? String(params["storage"] ?? srcStorage) : srcStorage;
      const name = full
        ? `vm-${newid}-disk-${diskIndex}`
        : `${volname}/vm-${newid}-disk-${diskIndex}`;
      diskIndex += 1;
      const source = sim.cluster.volume(node, volid);
      sim.cluster.putVolume(node, {
        volid: `${storage}:${name}`,
        storage,
        content: "images",
        format: cloneFormat(sim, node, storage, full, params["format"] ?? source?.format),
        size: source?.size ?? 0,
        ctime: Math.floor(Date.now() / 1000),
        vmid: newid,
      });
      config[key] = [`${storage}:${name}`, ...text.split(",").slice(1)].join(",");
    } else if (/^net\d+$/.test(key)) {
      config[key] = withNewMac(text);
    } else if (key === "smbios1") {
      config[key] = text.replace(/uuid=[0-9a-f-]+/i, `uuid=${randomUUID()}`);
    } else if (key === "vmgenid") {
      config[key] = randomUUID();
    } else {
      config[key] = value;
    }
  }
  const sourceName = source.config["name"];
  config["name"] = String(
    params["name"] ?? `Copy-of-VM-${typeof sourceName === "string" ? sourceName : source.vmid}`,
  );
  if (params["description"] !== undefined) config["description"] = String(params["description"]);
  return config;
}

export const qemuCloneRoutes: Route<SimContext>[] = [
  {
    method: "POST",
    path: "/nodes/{node}/qemu/{vmid}/clone",
    params: {
      node: NODE,
      vmid: VMID,
      newid: VMID,
      name: { type: "string", optional: true, format: "dns-name" },
      description: { type: "string", optional: true },
      pool: { type: "string", optional: true },
      snapname: { type: "string", optional: true, maxLength: 40 },
      storage: { type: "string", optional: true, format: "pve-storage-id" },
      format: { type: "string", optional: true, enum: ["raw", "qcow2", "vmdk"] },
      full: { type: "boolean", optional: true },
      target: { type: "string", optional: true, format: "pve-node" },
      bwlimit: { type: "integer", optional: true, min: 0 },
    },
    permission: (sim, { tokenId, raw }) => {
      requirePrivs(sim, tokenId, `/vms/${String(raw["vmid"])}`, ["VM.Clone"]);
      const pool = raw["pool"] === undefined ? undefined : String(raw["pool"]);
      if (pool !== undefined && sim.cluster.resourcePools.get(pool) === undefined)
        throw permError(`pool '${pool}' does not exist`);
      // VM.Allocate on the new VM, or on the pool it goes into.
      if (
        !sim.tokens.has(tokenId, `/vms/${String(raw["newid"])}`, "VM.Allocate") &&
        (pool === undefined || !sim.tokens.has(tokenId, `/pool/${pool}`, "VM.Allocate"))
      )
        throw permError();
    },
    handler: ({ sim, tokenId, params }) => {
      const { source, full } = precheck(sim, tokenId, params);
      const node = String(params["node"]);
      const vmid = Number(params["vmid"]);
      const newid = Number(params["newid"]);
      if (params["snapname"] !== undefined)
        throw dieError(`snapshot '${params["snapname"]}' does not exist`);
      // The UPID's id is the SOURCE vmid.
      return sim.tasks.start(node, "qmclone", String(vmid), tokenId, async (ctx) => {
        const releaseSource = await sim.flocks.acquire(vmid, source.status === "running", 1000);
        try {
          const releaseTarget = await sim.flocks.acquire(newid, true, 1000);
          try {
            const other = sim.cluster.vms.get(newid);
            if (other !== undefined) {
              throw dieError(
                other.node === node
                  ? `unable to create VM ${newid}: config file already exists`
                  : `clone failed: VM ${newid} already exists on node '${other.node}'`,
              );
            }
            // From here the target exists: only the temp file, `lock: clone`, no name.
            const temp = Cluster.newVm(newid, node, {
              description: " qmclone temporary file",
              lock: "clone",
            });
            sim.cluster.addVm(temp);
            sim.changed();
            for (const [key, volid, cdrom] of sourceVolumes(source.config)) {
              if (!cdrom)
                ctx.log(`create ${full ? "full" : "linked"} clone of drive ${key} (${volid})`);
            }
            await writeDisks(
              sim.storageIo,
              node,
              cloneDisks(sim, node, source, params, full),
              (storage) => isSharedStorage(sim.options.storages, storage),
              full,
              () => ctx.wait(1),
            );
            if (sim.cluster.vms.get(newid) !== temp)
              throw dieError(`clone failed: VM ${newid} vanished`);
            const config = cloneConfig(sim, node, source, newid, params, full);
            temp.config = config;
            const target = params["target"];
            if (target !== undefined) temp.node = String(target);
            const pool = params["pool"];
            if (pool !== undefined) sim.cluster.resourcePools.get(String(pool))?.vms.add(newid);
            sim.cluster.observe(temp);
            sim.changed();
          } finally {
            releaseTarget();
          }
        } finally {
          releaseSource();
        }
      }).upid;
    },
  },
];
