import { perm, vmPath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import {
  configMissing,
  configNotFound,
  dieError,
  NODE,
  VMID,
  type Params,
  type Route,
} from "../http/index.js";
import { releaseLeases } from "../guest/boot.js";
import type { TaskContext } from "../model/tasks.js";
import type { VmRecord } from "../model/types.js";
import { driveVolume, DRIVE_KEY, unset } from "../model/vm-config.js";

const bool = { type: "boolean", optional: true } as const;
const rootBool = { type: "boolean", optional: true, rootOnly: true } as const;
const timeout = { type: "integer", optional: true, min: 0 } as const;

/** Applies pending changes, as a VM stop (or the cleanup after it) does. */
function applyPending(vm: VmRecord): void {
  for (const [key, value] of Object.entries(vm.pending)) {
    if (value === null) unset(vm.config, key);
    else vm.config[key] = value;
  }
  vm.pending = {};
}

export function markStopped(sim: SimContext, vm: VmRecord): void {
  vm.status = "stopped";
  vm.qmpstatus = "stopped";
  delete vm.startedAt;
  applyPending(vm);
  vm.guest = vm.guest.seedError === undefined ? {} : { seedError: vm.guest.seedError };
  sim.cluster.observe(vm);
  sim.changed();
}

/** The start worker (vm_start): checks run inside the task, so every failure is a task error. */
export async function startWorker(
  sim: SimContext,
  node: string,
  vmid: number,
  ctx: TaskContext,
): Promise<void> {
  const release = await sim.flocks.acquire(vmid, true, 10_000);
  try {
    const vm = sim.cluster.vmOn(node, vmid);
    if (vm === undefined) throw configMissing(node, vmid);
    if (vm.config["lock"] !== undefined) throw dieError(`VM is locked (${vm.config["lock"]})`);
    if (vm.config["template"] === 1) throw dieError("you can't start a vm if it's a template");
    if (vm.status === "running") throw dieError(`VM ${vmid} already running`);
    for (const [key, value] of Object.entries(vm.config)) {
      const volid = DRIVE_KEY.test(key) ? driveVolume(String(value)) : undefined;
      if (volid !== undefined && sim.cluster.volume(node, volid) === undefined) {
        throw dieError(`volume '${volid}' does not exist`);
      }
    }
    await ctx.wait(1);
    applyPending(vm);
    vm.status = "running";
    vm.qmpstatus = "running";
    vm.startedAt = Date.now();
    sim.cluster.observe(vm);
    sim.changed();
    sim.bootGuest(vmid);
  } finally {
    release();
  }
}

async function stopWorker(
  sim: SimContext,
  node: string,
  vmid: number,
  ctx: TaskContext,
): Promise<void> {
  const release = await sim.flocks.acquire(vmid, true, 10_000);
  try {
    const vm = sim.cluster.vmOn(node, vmid);
    if (vm === undefined) throw configNotFound(node, vmid);
    if (vm.status !== "running") return;
    if (vm.config["lock"] !== undefined) throw dieError(`VM is locked (${vm.config["lock"]})`);
    await ctx.wait(1);
    markStopped(sim, vm);
  } finally {
    release();
  }
}

function ids(params: Params): { node: string; vmid: number } {
  return { node: String(params["node"]), vmid: Number(params["vmid"]) };
}

const powerPerm = perm("VM.PowerMgmt", vmPath);

export const qemuPowerRoutes: Route<SimContext>[] = [
  {
    method: "POST",
    path: "/nodes/{node}/qemu/{vmid}/status/start",
    params: {
      node: NODE,
      vmid: VMID,
      timeout,
      skiplock: rootBool,
      migratedfrom: { type: "string", optional: true, rootOnly: true },
      stateuri: { type: "string", optional: true, rootOnly: true },
      machine: { type: "string", optional: true },
    },
    permission: powerPerm,
    handler: ({ sim, tokenId, params }) => {
      const { node, vmid } = ids(params);
      return sim.tasks.start(node, "qmstart", String(vmid), tokenId, (ctx) =>
        startWorker(sim, node, vmid, ctx),
      ).upid;
    },
  },
  {
    method: "POST",
    path: "/nodes/{node}/qemu/{vmid}/status/stop",
    params: {
      node: NODE,
      vmid: VMID,
      timeout,
      skiplock: rootBool,
      keepActive: rootBool,
      "overrule-shutdown": bool,
    },
    permission: powerPerm,
    handler: ({ sim, tokenId, params }) => {
      const { node, vmid } = ids(params);
      return sim.tasks.start(node, "qmstop", String(vmid), tokenId, (ctx) =>
        stopWorker(sim, node, vmid, ctx),
      ).upid;
    },
  },
  {
    method: "POST",
    path: "/nodes/{node}/qemu/{vmid}/status/shutdown",
    params: {
      node: NODE,
      vmid: VMID,
      timeout,
      forceStop: bool,
      keepActive: rootBool,
      skiplock: rootBool,
    },
    permission: powerPerm,
    handler: ({ sim, tokenId, params }) => {
      const { node, vmid } = ids(params);
      const vm = sim.cluster.vmOn(node, vmid);
      if (vm?.qmpstatus === "paused" && params["forceStop"] !== 1)
        throw dieError("VM is paused - cannot shutdown");
      return sim.tasks.start(node, "qmshutdown", String(vmid), tokenId, (ctx) =>
        stopWorker(sim, node, vmid, ctx),
      ).upid;
    },
  },
  {
    method: "POST",
    path: "/nodes/{node}/qemu/{vmid}/status/reboot",
    params: { node: NODE, vmid: VMID, timeout },
    permission: powerPerm,
    handler: ({ sim, tokenId, params }) => {
      const { node, vmid } = ids(params);
      const vm = sim.cluster.vmOn(node, vmid);
      if (vm === undefined) throw configNotFound(node, vmid);
      if (vm.qmpstatus === "paused") throw dieError("VM is paused - cannot shutdown");
      if (vm.status !== "running") throw dieError(`VM ${vmid} not running`);
      return sim.tasks.start(node, "qmreboot", String(vmid), tokenId, async (ctx) => {
        await stopWorker(sim, node, vmid, ctx);
        // `qm cleanup` (via qmeventd) starts the VM again in a separate start task.
        sim.tasks.start(node, "qmstart", String(vmid), "root@pam", (start) =>
          startWorker(sim, node, vmid, start),
        );
      }).upid;
    },
  },
  {
    method: "DELETE",
    path: "/nodes/{node}/qemu/{vmid}",
    params: {
      node: NODE,
      vmid: VMID,
      purge: bool,
      "destroy-unreferenced-disks": bool,
      skiplock: rootBool,
    },
    permission: perm("VM.Allocate", vmPath),
    handler: ({ sim, tokenId, params }) => {
      const { node, vmid } = ids(params);
      const vm = sim.cluster.vmOn(node, vmid);
      if (vm === undefined) throw configMissing(node, vmid);
      if (vm.config["protection"] === 1)
        throw dieError(`can't remove VM ${vmid} - protection mode enabled`);
      if (vm.status === "running") throw dieError(`VM ${vmid} is running - destroy failed`);
      // The config lock is checked only inside the worker: a locked VM still gets a UPID.
      return sim.tasks.start(node, "qmdestroy", String(vmid), tokenId, async (ctx) => {
        const release = await sim.flocks.acquire(vmid, true, 10_000);
        try {
          const current = sim.cluster.vmOn(node, vmid);
          if (current === undefined) throw configMissing(node, vmid);
          if (current.config["lock"] !== undefined)
            throw dieError(`VM is locked (${current.config["lock"]})`);
          await ctx.wait(0.5);
          for (const volume of [...sim.cluster.volumes.values()]) {
            if (volume.vmid === vmid) {
              sim.cluster.deleteVolume(node, volume.volid);
              ctx.log(`Removing image: 100% complete...done.`);
            }
          }
          releaseLeases(sim, current);
          // PVE keeps a zombie config with only `lock: destroyed` until the very end.
          current.config = { lock: "destroyed" };
          current.pending = {};
          sim.changed();
          await ctx.wait(0.5);
          sim.cluster.removeVm(vmid);
          sim.changed();
        } finally {
          release();
        }
      }).upid;
    },
  },
];
