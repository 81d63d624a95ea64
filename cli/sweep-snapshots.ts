/**
 * sweep's snapshots: a snapshot `rollbackOnFailure` took before an update and whose update never
 * ended (a killed run's; provider/vm/rollback/snapshot-name.ts tells it from one `keep` holds),
 * on a marked VM a given state owns — a VM no state owns goes whole, its snapshots with it. The
 * next `pulumi up` of that VM would finish the update under it; `--apply` deletes it instead.
 */
import {
  deleteSnapshot,
  hasCode,
  isLeftOverSnapshot,
  type OperationContext,
  type ProxmoxApi,
} from "../provider/entry";
import type { MarkedVm } from "./sweep-scan";

export interface LeftSnapshot {
  readonly vmid: number;
  readonly node: string;
  readonly identity: string;
  readonly name: string;
  /** The VM's config lock (`snapshot`, `rollback`…) while a task still works on it. */
  readonly lock?: string | undefined;
}

/** The left-over snapshots of these VMs, one listing per VM; a VM gone since is skipped. */
export async function leftSnapshots(
  api: ProxmoxApi,
  vms: readonly MarkedVm[],
): Promise<LeftSnapshot[]> {
  const out: LeftSnapshot[] = [];
  for (const vm of vms) {
    let listed;
    try {
      listed = await api.vmSnapshots(vm.node, vm.vmid);
    } catch (error) {
      if (hasCode(error, "NOT_FOUND")) continue;
      throw error;
    }
    for (const snapshot of listed.snapshots.filter(isLeftOverSnapshot)) {
      out.push({
        vmid: vm.vmid,
        node: vm.node,
        identity: vm.identity,
        name: snapshot.name,
        ...(vm.lock === undefined ? {} : { lock: vm.lock }),
      });
    }
  }
  return out;
}

/** Deletes the snapshot (the VM keeps its current state), waiting for the task. */
export async function removeSnapshot(
  ctx: OperationContext,
  snapshot: LeftSnapshot,
  taskMs: number,
): Promise<void> {
  await deleteSnapshot(ctx, snapshot, snapshot.name, taskMs);
}
