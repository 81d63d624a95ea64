import { isSharedStorage, writeDisks } from "../model/storage-io.js";
import { perm, requirePrivs, vmPath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import {
  configMissing,
  dieError,
  NODE,
  paramError,
  VMID,
  type Params,
  type Route,
} from "../http/index.js";
import { allocateDisk, imageStorageProblem } from "../model/disk-volumes.js";
import { mapStorage, parseStorageMap, type StorageMap } from "../model/storage-map.js";
import type { VmRecord } from "../model/types.js";
import { addUnused, freeOwnedVolume } from "../model/pending.js";
import { migrationRefusal } from "../model/linked-clones.js";
import { hasSnapshots, volumeInSnapshot } from "../model/snapshots.js";
import {
  bytesToSize,
  configDigest,
  driveVolume,
  DRIVE_KEY,
  isCdrom,
  parsePropertyString,
  sizeToBytes,
} from "../model/vm-config.js";

/** The `targetstorage` parameter as a map (a 400 naming it when it does not parse). */
function storageMapParam(params: Params): StorageMap | undefined {
  if (params["targetstorage"] === undefined) return undefined;
  const map = parseStorageMap(String(params["targetstorage"]));
  if (typeof map === "string")
    throw paramError({ targetstorage: `failed to parse storage map: ${map}` });
  return map;
}

/** The VM's volumes on node-local storage (drives and unused disks), each once. */
function localVolumes(sim: SimContext, vm: VmRecord): string[] {
  const volids = Object.entries(vm.config)
    .filter(([key, value]) => DRIVE_KEY.test(key) && !isCdrom(String(value)))
    .map(([, value]) => driveVolume(String(value)))
    .filter((volid): volid is string => volid !== undefined)
    .filter((volid) => sim.cluster.storageOn(vm.node, volid.split(":")[0] ?? "")?.shared !== true);
  return [...new Set(volids)];
}

/** Copies a local volume to `target` (on its mapped storage) and frees the source. */
function copyVolume(
  sim: SimContext,
  vm: VmRecord,
  volid: string,
  target: string,
  map?: StorageMap,
): string {
  const storage = volid.split(":")[0] ?? "";
  const source = sim.cluster.volume(vm.node, volid);
  sim.cluster.deleteVolume(vm.node, volid);
  const destination = mapStorage(map, storage);
  if (source === undefined) return `${destination}:${volid.slice(storage.length + 1)}`;
  if (destination === storage) {
    sim.cluster.putVolume(target, source);
    return volid;
  }
  return allocateDisk(sim.cluster, target, destination, vm.vmid, source.size, source.format);
}

/** Points every config entry that uses `from` at `to`, keeping its options. */
function replaceVolume(vm: VmRecord, from: string, to: string): void {
  for (const [key, value] of Object.entries(vm.config)) {
    if (DRIVE_KEY.test(key) && driveVolume(String(value)) === from)
      vm.config[key] = [to, ...String(value).split(",").slice(1)].join(",");
  }
}

/** The drives a resize or move can name (not `unusedN`). */
const MOVABLE_DISK = /^(ide|sata|scsi|virtio|efidisk|tpmstate)\d+$/;

function ids(params: Params): { node: string; vmid: number } {
  return { node: String(params["node"]), vmid: Number(params["vmid"]) };
}

export const qemuDiskRoutes: Route<SimContext>[] = [
  {
    method: "PUT",
    path: "/nodes/{node}/qemu/{vmid}/resize",
    params: {
      node: NODE,
      vmid: VMID,
      disk: { type: "string", pattern: MOVABLE_DISK },
      size: { type: "string", pattern: /^\+?\d+(\.\d+)?[KMGT]?$/ },
      digest: { type: "string", optional: true, maxLength: 40 },
      skiplock: { type: "boolean", optional: true, rootOnly: true },
    },
    permission: perm("VM.Config.Disk", vmPath),
    handler: ({ sim, tokenId, params }) => {
      const node = String(params["node"]);
      const vmid = Number(params["vmid"]);
      const disk = String(params["disk"]);
      const size = String(params["size"]);
      const resize = async (wait: (units: number) => Promise<void>): Promise<void> => {
        const release = await sim.flocks.acquire(vmid, true, 10_000);
        try {
          const vm = sim.cluster.vmOn(node, vmid);
          if (vm === undefined) throw configMissing(node, vmid);
          if (vm.config["lock"] !== undefined)
            throw dieError(`VM is locked (${vm.config["lock"]})`);
          const value = vm.config[disk];
          if (value === undefined) throw dieError(`disk '${disk}' does not exist`);
          const volid = driveVolume(String(value)) ?? "";
          // Before qemu-server 8.0.2 (fix #517) a qcow2 disk could not grow while snapshots exist.
          const qcow2 = sim.cluster.volume(node, volid)?.format === "qcow2";
          if (hasSnapshots(vm) && qcow2 && sim.options.profile.resizeRefusesQcow2Snapshots)
            throw dieError(`can't resize volume: ${disk} if snapshot exists`);
          if (isCdrom(String(value))) throw dieError("you can't resize a cdrom");
          requirePrivs(sim, tokenId, `/storage/${volid.split(":")[0] ?? ""}`, [
            "Datastore.AllocateSpace",
          ]);
          const current = sizeToBytes(parsePropertyString(String(value)).opts["size"] ?? "0");
          const wanted = size.startsWith("+")
            ? current + sizeToBytes(size.slice(1))
            : sizeToBytes(size);
          if (wanted < current) throw dieError("shrinking disks is not supported");
          await wait(1);
          const newSize = bytesToSize(wanted);
          vm.config[disk] = String(value).replace(/,size=[^,]*/, "") + `,size=${newSize}`;
          const volume = sim.cluster.volume(node, volid);
          if (volume !== undefined) volume.size = wanted;
          sim.cluster.observe(vm);
          sim.changed();
        } finally {
          release();
        }
      };
      // Before 8.0 the resize runs inside the request and answers null; its errors are the
      // request's. Since 8.0 it is a `resize` task and every error, even a missing VM, is the task's.
      if (!sim.options.profile.resizeIsTask)
        return resize(() => Promise.resolve()).then(() => null);
      return sim.tasks.start(node, "resize", String(vmid), tokenId, (ctx) => resize(ctx.wait)).upid;
    },
  },
  {
    method: "POST",
    path: "/nodes/{node}/qemu/{vmid}/move_disk",
    params: {
      node: NODE,
      vmid: VMID,
      disk: { type: "string", pattern: MOVABLE_DISK },
      storage: { type: "string", optional: true, format: "pve-storage-id" },
      format: { type: "string", optional: true, enum: ["raw", "qcow2", "vmdk"] },
      delete: { type: "boolean", optional: true },
      digest: { type: "string", optional: true, maxLength: 40 },
      bwlimit: { type: "integer", optional: true, min: 0 },
      "target-vmid": { type: "integer", optional: true, format: "pve-vmid" },
      "target-disk": { type: "string", optional: true, pattern: MOVABLE_DISK },
      "target-digest": { type: "string", optional: true, maxLength: 40 },
    },
    permission: perm("VM.Config.Disk", vmPath),
    handler: ({ sim, tokenId, params }) => {
      const { node, vmid } = ids(params);
      const disk = String(params["disk"]);
      if (params["target-vmid"] !== undefined || params["target-disk"] !== undefined)
        throw dieError("moving a disk to another VM is not modelled by the simulator");
      if (params["storage"] === undefined)
        throw paramError({ storage: "either set 'storage' or 'target-vmid'" });
      const storage = String(params["storage"]);
      const vm = sim.cluster.vmOn(node, vmid);
      if (vm === undefined) throw configMissing(node, vmid);
      if (vm.config["lock"] !== undefined) throw dieError(`VM is locked (${vm.config["lock"]})`);
      if (params["digest"] !== undefined && params["digest"] !== configDigest(vm))
        throw dieError("checksum mismatch (file change by other user?)");
      const value = vm.config[disk];
      if (value === undefined) throw dieError(`disk '${disk}' does not exist`);
      if (isCdrom(String(value))) throw dieError("you can't move a cdrom");
      const volid = driveVolume(String(value)) ?? "";
      const source = sim.cluster.volume(node, volid);
      const format = params["format"] === undefined ? source?.format : String(params["format"]);
      if (volid.split(":")[0] === storage && (format === undefined || format === source?.format))
        throw dieError("you can't move to the same storage with same format");
      // move_vm_disk: a snapshot still holds the source, so it may be copied but not deleted.
      if (params["delete"] === 1 && volumeInSnapshot(vm, volid))
        throw dieError("you can't move a disk with snapshots and delete the source");
      const unusable = imageStorageProblem(sim.cluster, node, storage);
      if (unusable !== undefined) throw dieError(unusable);
      requirePrivs(sim, tokenId, `/storage/${storage}`, ["Datastore.AllocateSpace"]);
      return sim.tasks.start(node, "qmmove", String(vmid), tokenId, async (ctx) => {
        // The VM's flock is held for the whole copy, so config updates wait for it.
        const release = await sim.flocks.acquire(vmid, true, 10_000);
        try {
          const bytes =
            source?.size ?? sizeToBytes(parsePropertyString(String(value)).opts["size"] ?? "0");
          await writeDisks(
            sim.storageIo,
            node,
            [{ storage, bytes }],
            (id) => isSharedStorage(sim.options.storages, id),
            true,
            () => ctx.wait(1),
          );
          const moved = allocateDisk(sim.cluster, node, storage, vmid, bytes, format);
          ctx.log(`moving disk '${volid}' to '${moved}'`);
          vm.config[disk] = [moved, ...String(value).split(",").slice(1)]
            .filter((part) => !part.startsWith("format="))
            .join(",");
          if (params["delete"] === 1) freeOwnedVolume(sim.cluster, vm, volid);
          else addUnused(vm, volid);
          sim.cluster.observe(vm);
          sim.changed();
        } finally {
          release();
        }
      }).upid;
    },
  },
  {
    method: "POST",
    path: "/nodes/{node}/qemu/{vmid}/migrate",
    params: {
      node: NODE,
      vmid: VMID,
      target: NODE,
      online: { type: "boolean", optional: true },
      "with-local-disks": { type: "boolean", optional: true },
      targetstorage: { type: "string", optional: true },
      bwlimit: { type: "integer", optional: true, min: 0 },
      force: { type: "boolean", optional: true, rootOnly: true },
      migration_type: { type: "string", optional: true, rootOnly: true },
      migration_network: { type: "string", optional: true, rootOnly: true },
    },
    permission: perm("VM.Migrate", vmPath),
    handler: ({ sim, tokenId, params }) => {
      const node = String(params["node"]);
      const vmid = Number(params["vmid"]);
      const target = String(params["target"]);
      if (target === node) throw paramError({ target: "target is local node." });
      if (!sim.cluster.nodes.has(target)) throw dieError(`no such cluster node '${target}'`);
      const vm = sim.cluster.vmOn(node, vmid);
      if (vm === undefined) throw configMissing(node, vmid);
      if (vm.config["lock"] !== undefined) throw dieError(`VM is locked (${vm.config["lock"]})`);
      if (vm.status === "running" && params["online"] !== 1)
        throw dieError("can't migrate running VM without --online");
      const map = storageMapParam(params);
      const local = localVolumes(sim, vm);
      if (local.length > 0 && params["with-local-disks"] !== 1)
        throw dieError(
          `can't migrate local disk '${local[0] ?? ""}': please use --with-local-disks`,
        );
      for (const storage of new Set(
        local.map((volid) => mapStorage(map, volid.split(":")[0] ?? "")),
      )) {
        const unusable = imageStorageProblem(sim.cluster, target, storage);
        if (unusable !== undefined) throw dieError(unusable);
        requirePrivs(sim, tokenId, `/storage/${storage}`, ["Datastore.AllocateSpace"]);
      }
      return sim.tasks.start(node, "qmigrate", String(vmid), tokenId, async (ctx) => {
        vm.config["lock"] = "migrate";
        sim.changed();
        try {
          const refusal = migrationRefusal(sim.cluster, node, vm);
          if (refusal !== undefined) {
            ctx.log(`ERROR: migration aborted (duration 00:00:00): ${refusal}`);
            throw dieError("migration aborted");
          }
          await ctx.wait(1);
          for (const volid of local) {
            const moved = copyVolume(sim, vm, volid, target, map);
            ctx.log(`copying local disk '${volid}' to '${target}' as '${moved}'`);
            replaceVolume(vm, volid, moved);
          }
          vm.node = target;
        } finally {
          delete vm.config["lock"];
          sim.cluster.observe(vm);
          sim.changed();
        }
      }).upid;
    },
  },
];
