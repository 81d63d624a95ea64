import { perm, requireAnyPriv, vmPath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import {
  configMissing,
  dieError,
  NODE,
  VMID,
  type ParamSpec,
  type Params,
  type Route,
} from "../http/index.js";
import type { TaskContext } from "../model/tasks.js";
import type { SnapshotRecord, VmRecord } from "../model/types.js";
import { copyForSnapshot, diskWithoutSnapshots, saveVmstate } from "../model/snapshots.js";
import { configDigest } from "../model/vm-config.js";

/**
 * The snapshot endpoints of qemu-server `PVE/API2/Qemu.pm` (`snapshot_list`, `snapshot`,
 * `snapshot_cmd_idx`, `get_snapshot_config`, `update_snapshot_config`; rollback and delete in
 * qemu-snapshot-rollback.ts), with the steps of pve-guest-common `PVE/AbstractConfig.pm`
 * (`snapshot_create`: `__snapshot_prepare`, the volume snapshots, `__snapshot_commit`).
 */

/** pve-common's `pve-snapshot-name` standard option: a config id of at most 40 characters. */
export const SNAPNAME: ParamSpec = { type: "string", format: "pve-configid", maxLength: 40 };

export function ids(params: Params): { node: string; vmid: number; name: string } {
  return {
    node: String(params["node"]),
    vmid: Number(params["vmid"]),
    name: String(params["snapname"] ?? ""),
  };
}

/** load_config: the VM on this node, or PVE's missing-config die. */
export function loadVm(sim: SimContext, node: string, vmid: number): VmRecord {
  const vm = sim.cluster.vmOn(node, vmid);
  if (vm === undefined) throw configMissing(node, vmid);
  return vm;
}

/** AbstractConfig check_lock. */
export function checkLock(vm: VmRecord): void {
  if (vm.config["lock"] !== undefined) throw dieError(`VM is locked (${vm.config["lock"]})`);
}

/** The named snapshot, or PVE's "does not exist" die. */
export function snapshotOf(vm: VmRecord, name: string): SnapshotRecord {
  const snap = vm.snapshots?.[name];
  if (snap === undefined) throw dieError(`snapshot '${name}' does not exist`);
  return snap;
}

/** `lock_config`: runs `change` holding the VM's flock, as every config write does. */
export async function withFlock<T>(sim: SimContext, vmid: number, change: () => T): Promise<T> {
  const release = await sim.flocks.acquire(vmid, true, 10_000);
  try {
    const result = change();
    sim.changed();
    return result;
  } finally {
    release();
  }
}

/** `snapshot_create`: prepare under the `snapshot` lock, snapshot each disk, commit. */
async function createSnapshot(sim: SimContext, ctx: TaskContext, params: Params): Promise<void> {
  const { node, vmid, name } = ids(params);
  await withFlock(sim, vmid, () => {
    const vm = loadVm(sim, node, vmid);
    if (vm.config["template"] === 1) throw dieError("you can't take a snapshot if it's a template");
    checkLock(vm);
    if (vm.snapshots?.[name] !== undefined) throw dieError(`snapshot name '${name}' already used`);
    if (diskWithoutSnapshots(sim.cluster, vm) !== undefined)
      throw dieError("snapshot feature is not available");
    vm.config["lock"] = "snapshot";
    vm.snapshots ??= {};
    // A snapshot that names the new one as parent would make a cycle: PVE drops the reference.
    for (const [other, snap] of Object.entries(vm.snapshots)) {
      if (snap.config["parent"] !== name) continue;
      ctx.warn(
        `deleting parent '${name}' reference from '${other}' to avoid bogus snapshot cycle.`,
      );
      delete snap.config["parent"];
    }
    const snap: SnapshotRecord = {
      config: copyForSnapshot(vm.config),
      snaptime: Math.floor(Date.now() / 1000),
      snapstate: "prepare",
    };
    const vmstate =
      params["vmstate"] === 1 && vm.status === "running"
        ? saveVmstate(sim.cluster, vm, name)
        : undefined;
    if (vmstate !== undefined) snap.vmstate = vmstate;
    if (typeof params["description"] === "string" && params["description"] !== "")
      snap.description = params["description"];
    vm.snapshots[name] = snap;
  });
  await ctx.wait(1);
  await withFlock(sim, vmid, () => {
    const vm = loadVm(sim, node, vmid);
    if (vm.config["lock"] !== "snapshot") throw dieError("missing snapshot lock");
    const snap = snapshotOf(vm, name);
    if (snap.snapstate !== "prepare") throw dieError("wrong snapshot state");
    delete snap.snapstate;
    delete vm.config["lock"];
    vm.config["parent"] = name;
  });
}

/** A `snapshot_list` row (PVE lists `vmstate` as 0/1 and the description as '' when unset). */
function listRow(name: string, snap: SnapshotRecord): Record<string, unknown> {
  return {
    name,
    snaptime: snap.snaptime,
    vmstate: snap.vmstate === undefined ? 0 : 1,
    description: snap.description ?? "",
    ...(snap.config["parent"] === undefined ? {} : { parent: snap.config["parent"] }),
    ...(snap.snapstate === undefined ? {} : { snapstate: snap.snapstate }),
  };
}

const snapshotPath = "/nodes/{node}/qemu/{vmid}/snapshot";

export const qemuSnapshotRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: snapshotPath,
    params: { node: NODE, vmid: VMID },
    permission: perm("VM.Audit", vmPath),
    handler: ({ sim, params }) => {
      const { node, vmid } = ids(params);
      const vm = loadVm(sim, node, vmid);
      const rows = Object.entries(vm.snapshots ?? {}).map(([name, snap]) => listRow(name, snap));
      return [
        ...rows,
        {
          name: "current",
          digest: configDigest(vm),
          running: vm.status === "running" ? 1 : 0,
          description: "You are here!",
          ...(vm.config["parent"] === undefined ? {} : { parent: vm.config["parent"] }),
        },
      ];
    },
  },
  {
    method: "POST",
    path: snapshotPath,
    params: {
      node: NODE,
      vmid: VMID,
      snapname: SNAPNAME,
      vmstate: { type: "boolean", optional: true },
      description: { type: "string", optional: true },
    },
    permission: perm("VM.Snapshot", vmPath),
    handler: ({ sim, tokenId, params }) => {
      const { node, vmid, name } = ids(params);
      if (name === "current")
        throw dieError("unable to use snapshot name 'current' (reserved name)");
      if (name.toLowerCase() === "pending")
        throw dieError("unable to use snapshot name 'pending' (reserved name)");
      loadVm(sim, node, vmid);
      return sim.tasks.start(node, "qmsnapshot", String(vmid), tokenId, (ctx) =>
        createSnapshot(sim, ctx, params),
      ).upid;
    },
  },
  {
    method: "GET",
    path: `${snapshotPath}/{snapname}`,
    params: { node: NODE, vmid: VMID, snapname: SNAPNAME },
    // `user => 'all'`: the index of a snapshot's sub-paths checks neither VM nor snapshot.
    handler: () => [{ cmd: "rollback" }, { cmd: "config" }],
  },
  {
    method: "GET",
    path: `${snapshotPath}/{snapname}/config`,
    params: { node: NODE, vmid: VMID, snapname: SNAPNAME },
    permission: (sim, { tokenId, raw }) =>
      requireAnyPriv(sim, tokenId, vmPath(raw), [
        "VM.Snapshot",
        "VM.Snapshot.Rollback",
        "VM.Audit",
      ]),
    handler: ({ sim, params }) => {
      const { node, vmid, name } = ids(params);
      const snap = snapshotOf(loadVm(sim, node, vmid), name);
      return {
        ...snap.config,
        snaptime: snap.snaptime,
        ...(snap.description === undefined ? {} : { description: snap.description }),
        ...(snap.vmstate === undefined ? {} : { vmstate: snap.vmstate }),
        ...(snap.snapstate === undefined ? {} : { snapstate: snap.snapstate }),
      };
    },
  },
  {
    method: "PUT",
    path: `${snapshotPath}/{snapname}/config`,
    params: {
      node: NODE,
      vmid: VMID,
      snapname: SNAPNAME,
      description: { type: "string", optional: true },
    },
    permission: perm("VM.Snapshot", vmPath),
    handler: async ({ sim, params }) => {
      const { node, vmid, name } = ids(params);
      // update_snapshot_config returns before any check when there is nothing to change.
      if (params["description"] === undefined) return null;
      await withFlock(sim, vmid, () => {
        const vm = loadVm(sim, node, vmid);
        checkLock(vm);
        snapshotOf(vm, name).description = String(params["description"]);
      });
      return null;
    },
  },
];
