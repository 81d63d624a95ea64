import { perm, requirePrivs, vmPath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { configMissing, dieError, NODE, paramError, VMID, type Route } from "../http/index.js";
import { migrationRefusal } from "../model/linked-clones.js";
import {
  bytesToSize,
  driveVolume,
  DRIVE_KEY,
  isCdrom,
  parsePropertyString,
  sizeToBytes,
} from "../model/vm-config.js";

export const qemuDiskRoutes: Route<SimContext>[] = [
  {
    method: "PUT",
    path: "/nodes/{node}/qemu/{vmid}/resize",
    params: {
      node: NODE,
      vmid: VMID,
      disk: { type: "string", pattern: /^(ide|sata|scsi|virtio|efidisk|tpmstate)\d+$/ },
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
      // PVE >= 8.0: a `resize` task; every error, even a missing VM, is a task error.
      return sim.tasks.start(node, "resize", String(vmid), tokenId, async (ctx) => {
        const release = await sim.flocks.acquire(vmid, true, 10_000);
        try {
          const vm = sim.cluster.vmOn(node, vmid);
          if (vm === undefined) throw configMissing(node, vmid);
          if (vm.config["lock"] !== undefined)
            throw dieError(`VM is locked (${vm.config["lock"]})`);
          const value = vm.config[disk];
          if (value === undefined) throw dieError(`disk '${disk}' does not exist`);
          if (isCdrom(String(value))) throw dieError("you can't resize a cdrom");
          const volid = driveVolume(String(value)) ?? "";
          requirePrivs(sim, tokenId, `/storage/${volid.split(":")[0] ?? ""}`, [
            "Datastore.AllocateSpace",
          ]);
          const current = sizeToBytes(parsePropertyString(String(value)).opts["size"] ?? "0");
          const wanted = size.startsWith("+")
            ? current + sizeToBytes(size.slice(1))
            : sizeToBytes(size);
          if (wanted < current) throw dieError("shrinking disks is not supported");
          await ctx.wait(1);
          const newSize = bytesToSize(wanted);
          vm.config[disk] = String(value).replace(/,size=[^,]*/, "") + `,size=${newSize}`;
          const volume = sim.cluster.volume(node, volid);
          if (volume !== undefined) volume.size = wanted;
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
      for (const [key, value] of Object.entries(vm.config)) {
        const volid = DRIVE_KEY.test(key) ? driveVolume(String(value)) : undefined;
        const storage = volid?.split(":")[0] ?? "";
        if (
          volid !== undefined &&
          sim.cluster.storageOn(node, storage)?.shared !== true &&
          params["with-local-disks"] !== 1
        ) {
          throw dieError(`can't migrate local disk '${volid}': please use --with-local-disks`);
        }
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
          for (const volume of sim.cluster.volumes.values()) {
            if (volume.vmid === vmid && volume.node === node) {
              sim.cluster.deleteVolume(node, volume.volid);
              sim.cluster.putVolume(target, volume);
            }
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
