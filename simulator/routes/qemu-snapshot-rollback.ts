import { perm, requireAnyPriv, vmPath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { dieError, NODE, VMID, type Params, type Route } from "../http/index.js";
import { dropSnapshot, rollbackRefusal, rollBack } from "../model/snapshots.js";
import type { TaskContext } from "../model/tasks.js";
import { markStopped, startWorker } from "./qemu-power.js";
import { checkLock, ids, loadVm, SNAPNAME, snapshotOf, withFlock } from "./qemu-snapshot.js";

/**
 * Rollback and delete of a snapshot: qemu-server `PVE/API2/Qemu.pm` (`rollback`, `delsnapshot`)
 * with pve-guest-common `PVE/AbstractConfig.pm` (`snapshot_rollback`, `snapshot_delete`).
 */

/**
 * `snapshot_rollback`: prepare (checks, stop the VM, `rollback` lock), roll each disk back, then
 * write the snapshot's config. A snapshot with RAM resumes the VM; `start` (qemu-server 7.2-7
 * and later, so every modelled release) starts one that is stopped after the rollback.
 */
async function rollbackSnapshot(sim: SimContext, ctx: TaskContext, params: Params): Promise<void> {
  const { node, vmid, name } = ids(params);
  await withFlock(sim, vmid, () => {
    const vm = loadVm(sim, node, vmid);
    if (vm.config["template"] === 1) throw dieError("you can't rollback if vm is a template");
    const snap = snapshotOf(vm, name);
    const refusal = rollbackRefusal(sim.cluster, vm, name);
    if (refusal !== undefined) throw dieError(refusal);
    if (snap.snapstate !== undefined)
      throw dieError(`unable to rollback to incomplete snapshot (snapstate = ${snap.snapstate})`);
    checkLock(vm);
    // __snapshot_rollback_vm_stop: a running VM is stopped hard, not shut down.
    if (vm.status === "running") markStopped(sim, vm);
    vm.config["lock"] = "rollback";
  });
  await ctx.wait(1);
  const resume = await withFlock(sim, vmid, () => {
    const vm = loadVm(sim, node, vmid);
    if (vm.config["lock"] !== "rollback") throw dieError("got wrong lock");
    const snap = snapshotOf(vm, name);
    rollBack(sim.cluster, vm, name, snap);
    sim.cluster.observe(vm);
    return snap.vmstate !== undefined;
  });
  if (resume || params["start"] === 1) await startWorker(sim, node, vmid, ctx);
}

/** `snapshot_delete`: the `snapshot-delete` lock, the RAM state and disk snapshots, then the section. */
async function deleteSnapshot(sim: SimContext, ctx: TaskContext, params: Params): Promise<void> {
  const { node, vmid, name } = ids(params);
  const vmstate = await withFlock(sim, vmid, () => {
    const vm = loadVm(sim, node, vmid);
    const snap = snapshotOf(vm, name);
    checkLock(vm);
    if (vm.config["template"] === 1)
      throw dieError("you can't delete a snapshot if vm is a template");
    vm.config["lock"] = "snapshot-delete";
    snap.snapstate = "delete";
    return snap.vmstate;
  });
  await ctx.wait(1);
  if (vmstate !== undefined) sim.cluster.deleteVolume(node, vmstate);
  await withFlock(sim, vmid, () => {
    const vm = loadVm(sim, node, vmid);
    if (vm.config["lock"] !== "snapshot-delete")
      throw dieError("encountered invalid lock, expected 'snapshot-delete'");
    snapshotOf(vm, name);
    dropSnapshot(vm, name);
    delete vm.config["lock"];
  });
}

const snapPath = "/nodes/{node}/qemu/{vmid}/snapshot/{snapname}";

export const qemuSnapshotRollbackRoutes: Route<SimContext>[] = [
  {
    method: "POST",
    path: `${snapPath}/rollback`,
    params: {
      node: NODE,
      vmid: VMID,
      snapname: SNAPNAME,
      start: { type: "boolean", optional: true },
    },
    permission: (sim, { tokenId, raw }) =>
      requireAnyPriv(sim, tokenId, vmPath(raw), ["VM.Snapshot", "VM.Snapshot.Rollback"]),
    handler: ({ sim, tokenId, params }) => {
      const { node, vmid } = ids(params);
      // Every check runs in the worker: a missing VM or snapshot is the task's error.
      return sim.tasks.start(node, "qmrollback", String(vmid), tokenId, (ctx) =>
        rollbackSnapshot(sim, ctx, params),
      ).upid;
    },
  },
  {
    method: "DELETE",
    path: snapPath,
    params: {
      node: NODE,
      vmid: VMID,
      snapname: SNAPNAME,
      force: { type: "boolean", optional: true },
    },
    permission: perm("VM.Snapshot", vmPath),
    handler: ({ sim, tokenId, params }) => {
      const { node, vmid } = ids(params);
      return sim.tasks.start(node, "qmdelsnapshot", String(vmid), tokenId, (ctx) =>
        deleteSnapshot(sim, ctx, params),
      ).upid;
    },
  },
];
