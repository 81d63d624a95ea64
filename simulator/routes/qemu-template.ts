import { perm, vmPath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { configMissing, dieError, NODE, VMID, type Route } from "../http/index.js";
import { baseName, isBaseVolume } from "../model/linked-clones.js";
import type { TaskContext } from "../model/tasks.js";
import type { VmRecord } from "../model/types.js";
import { driveVolume, DRIVE_KEY, isCdrom } from "../model/vm-config.js";

/** The template endpoint's $load_and_check, run before the task and again inside it. */
function loadAndCheck(sim: SimContext, node: string, vmid: number): VmRecord {
  const vm = sim.cluster.vmOn(node, vmid);
  if (vm === undefined) throw configMissing(node, vmid);
  if (vm.config["lock"] !== undefined) throw dieError(`VM is locked (${vm.config["lock"]})`);
  if (vm.config["template"] === 1) throw dieError("you can't convert a template to a template");
  if (vm.status === "running")
    throw dieError("you can't convert a VM to template if VM is running");
  return vm;
}

/** template_create: each disk (not CD-ROMs, so not the cloud-init drive) becomes a base volume. */
function createBaseVolumes(sim: SimContext, vm: VmRecord, ctx: TaskContext): void {
  for (const [key, value] of Object.entries(vm.config)) {
    const text = String(value);
    const volid = DRIVE_KEY.test(key) ? driveVolume(text) : undefined;
    if (volid === undefined || isCdrom(text) || isBaseVolume(volid)) continue;
    const [storage = ""] = volid.split(":");
    const def = sim.cluster.storageOn(vm.node, storage);
    // LVMPlugin::create_base: thick LVM has no base images (and so no linked clones).
    if (def?.type === "lvm") throw dieError("can't create base images in lvm storage");
    const volume = sim.cluster.volume(vm.node, volid);
    const base = baseName(volid);
    if (volume !== undefined) {
      sim.cluster.deleteVolume(vm.node, volid);
      sim.cluster.putVolume(vm.node, { ...volume, volid: base });
    }
    if (def?.type === "lvmthin") {
      const [from, to] = [volid, base].map((v) => v.slice(storage.length + 1));
      ctx.log(`  Renamed "${from}" to "${to}" in volume group "pve"`);
      ctx.log(`  Logical volume pve/${to} changed.`);
    }
    vm.config[key] = [base, ...text.split(",").slice(1)].join(",");
    sim.changed();
  }
}

export const qemuTemplateRoutes: Route<SimContext>[] = [
  {
    method: "POST",
    path: "/nodes/{node}/qemu/{vmid}/template",
    params: { node: NODE, vmid: VMID },
    permission: perm("VM.Allocate", vmPath),
    handler: ({ sim, tokenId, params }) => {
      const node = String(params["node"]);
      const vmid = Number(params["vmid"]);
      loadAndCheck(sim, node, vmid);
      return sim.tasks.start(node, "qmtemplate", String(vmid), tokenId, async (ctx) => {
        const release = await sim.flocks.acquire(vmid, true, 10_000);
        try {
          const vm = loadAndCheck(sim, node, vmid);
          // The flag is written before the disks are converted, as PVE does.
          vm.config["template"] = 1;
          sim.cluster.observe(vm);
          sim.changed();
          await ctx.wait(1);
          createBaseVolumes(sim, vm, ctx);
        } finally {
          release();
        }
      }).upid;
    },
  },
];
