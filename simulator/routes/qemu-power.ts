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
import { assertBasesUnused } from "../model/linked-clones.js";
import type { TaskContext } from "../model/tasks.js";
import type { VmRecord } from "../model/types.js";
import { machineTooNew } from "../model/machine.js";
import { applyPending } from "../model/pending.js";
import { missingBridge } from "../model/node-network.js";
import { reserveHostDevices } from "../model/host-devices.js";
import { driveVolume, DRIVE_KEY, parsePropertyString } from "../model/vm-config.js";

const bool = { type: "boolean", optional: true } as const;
const rootBool = { type: "boolean", optional: true, rootOnly: true } as const;
const timeout = { type: "integer", optional: true, min: 0 } as const;

export function markStopped(sim: SimContext, vm: VmRecord): void {
  vm.status = "stopped";
  vm.qmpstatus = "stopped";
  delete vm.startedAt;
  delete vm.pciDevices;
  applyPending(sim.cluster, vm);
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
    applyPending(sim.cluster, vm);
    const tooNew = machineTooNew(vm.config["machine"], sim.options.profile.qemuVersion, node);
    if (tooNew !== undefined) throw dieError(tooNew);
    let pciDevices: readonly string[];
    try {
      pciDevices = reserveHostDevices(sim.cluster, vm, sim.options.profile.pveVersion);
    } catch (err) {
      throw dieError(err instanceof Error ? err.message : String(err));
    }
    plugNics(sim, vm, ctx);
    vm.pciDevices = pciDevices;
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

/**
 * QEMU runs qemu-server's `pve-bridge` script for each NIC as it starts; for a bridge the node
 * lacks, pve-common's `PVE::Network` (`$read_bridge_mtu`) dies "bridge '<name>' does not exist",
 * QEMU reports the script's failure and exits, and vm_start dies "start failed: QEMU exited with
 * code 1". The config PVE wrote earlier keeps the bridge: PVE never checks it before the start.
 */
function plugNics(sim: SimContext, vm: VmRecord, ctx: TaskContext): void {
  const node = sim.cluster.nodes.get(vm.node);
  const nics = Object.entries(vm.config)
    .filter(([key]) => /^net\d+$/.test(key))
    .map(([key, value]) => [key, parsePropertyString(String(value)).opts["bridge"]] as const);
  const missing = node === undefined ? undefined : missingBridge(node, nics);
  if (missing === undefined) return;
  const script = sim.options.profile.bridgeScript;
  const tap = `tap${vm.vmid}i${missing.key.slice(3)}`;
  ctx.log(`bridge '${missing.bridge}' does not exist`);
  ctx.log(
    `kvm: -netdev type=tap,id=${missing.key},ifname=${tap},script=${script},` +
      `downscript=${script}down,vhost=on: network script ${script} failed with status 512`,
  );
  throw dieError("start failed: QEMU exited with code 1");
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

/**
 * What `ha-manager set vm:N --state …` (start) and `ha-manager crm-command stop vm:N 0` (stop,
 * shutdown) do: record the requested state, then let the CRM act on it after its delay. The
 * CRM starts or stops the VM in a task of its own (user root@pam, like the LRM's workers).
 */
export function requestHaState(sim: SimContext, vmid: number, state: "started" | "stopped"): void {
  const resource = sim.cluster.ha.configured(vmid);
  if (resource === undefined) return;
  resource.state = state;
  if (state === "stopped" && resource.crmState === "started") resource.crmState = "request_stop";
  sim.changed();
  scheduleCrm(sim, vmid);
}

/**
 * HA resources whose start or stop worker is still running. Like pve-ha-manager's LRM, which
 * runs at most one worker per service, a CRM round that finds one in flight leaves the service
 * alone; the worker's end brings it to the requested state, or the next round does.
 */
const workerInFlight = new WeakSet<object>();

/** One CRM round for the VM after `haCrmDelayMs`: brings the VM to its requested state. */
export function scheduleCrm(sim: SimContext, vmid: number): void {
  void sim.tasks.sleep(sim.options.haCrmDelayMs).then(() => {
    const resource = sim.cluster.ha.managed(vmid);
    const vm = sim.cluster.vms.get(vmid);
    if (resource === undefined || vm === undefined || workerInFlight.has(resource)) return;
    const wanted =
      resource.state === "stopped" || resource.state === "disabled" ? "stopped" : "started";
    const worker = (work: () => Promise<void>) => async () => {
      try {
        await work();
      } finally {
        workerInFlight.delete(resource);
      }
      // A state requested while the worker ran is acted on now (a failed worker is not
      // retried: the service stays where it is, as a real one in `error` would).
      const after = sim.cluster.vms.get(vmid);
      const still = sim.cluster.ha.managed(vmid);
      if (still === undefined || after === undefined) return;
      const stop = still.state === "stopped" || still.state === "disabled";
      if (stop === (after.status === "running")) scheduleCrm(sim, vmid);
    };
    if (wanted === "started" && vm.status !== "running") {
      resource.crmState = "started";
      workerInFlight.add(resource);
      sim.tasks.start(vm.node, "qmstart", String(vmid), "root@pam", (ctx) =>
        worker(() => startWorker(sim, vm.node, vmid, ctx))(),
      );
    } else if (wanted === "stopped" && vm.status === "running") {
      resource.crmState = "request_stop";
      workerInFlight.add(resource);
      sim.tasks.start(vm.node, "qmstop", String(vmid), "root@pam", (ctx) =>
        worker(async () => {
          await stopWorker(sim, vm.node, vmid, ctx);
          resource.crmState = "stopped";
        })(),
      );
    } else {
      resource.crmState = wanted;
    }
    sim.changed();
  });
}

/** The API's fork of an `hastart`/`hastop` task: it only asks the CRM and ends at once. */
function haTask(
  sim: SimContext,
  node: string,
  vmid: number,
  tokenId: string,
  state: "started" | "stopped",
): string {
  const type = state === "started" ? "hastart" : "hastop";
  return sim.tasks.start(node, type, String(vmid), tokenId, (ctx) => {
    ctx.log(`Requesting HA ${state === "started" ? "start" : "stop"} for VM ${vmid}`);
    requestHaState(sim, vmid, state);
    return Promise.resolve();
  }).upid;
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
      // qemu-server vm_start: an HA-managed VM is started by the CRM, unless migrating in.
      if (sim.cluster.ha.managed(vmid) && params["stateuri"] === undefined)
        return haTask(sim, node, vmid, tokenId, "started");
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
      migratedfrom: { type: "string", optional: true, rootOnly: true },
    },
    permission: powerPerm,
    handler: ({ sim, tokenId, params }) => {
      const { node, vmid } = ids(params);
      if (sim.cluster.ha.managed(vmid) && params["migratedfrom"] === undefined)
        return haTask(sim, node, vmid, tokenId, "stopped");
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
      if (sim.cluster.ha.managed(vmid)) return haTask(sim, node, vmid, tokenId, "stopped");
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
      const purge = params["purge"] === 1;
      if (sim.cluster.ha.configured(vmid) !== undefined && !purge)
        throw dieError(
          `unable to remove VM ${vmid} - used in HA resources and purge parameter not set.`,
        );
      if (vm.status === "running") throw dieError(`VM ${vmid} is running - destroy failed`);
      // The config lock is checked only inside the worker: a locked VM still gets a UPID.
      return sim.tasks.start(node, "qmdestroy", String(vmid), tokenId, async (ctx) => {
        const release = await sim.flocks.acquire(vmid, true, 10_000);
        try {
          const current = sim.cluster.vmOn(node, vmid);
          if (current === undefined) throw configMissing(node, vmid);
          if (current.config["lock"] !== undefined)
            throw dieError(`VM is locked (${current.config["lock"]})`);
          if (current.config["template"] === 1) assertBasesUnused(sim.cluster, node, current);
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
          if (purge && sim.cluster.ha.remove(vmid)) {
            ctx.log(`purging VM ${vmid} from related configurations..`);
            ctx.log(`NOTE: removed VM ${vmid} from HA resource configuration.`);
          }
          sim.cluster.removeVm(vmid);
          sim.changed();
        } finally {
          release();
        }
      }).upid;
    },
  },
];
