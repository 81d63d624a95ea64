/**
 * What `pulumi-proxmox rollback` rolls back, found in the stack's own state: a ProxmoxVm by its
 * resource name or its VM name, and the snapshot by a VmSnapshot's resource name (of that VM) or
 * by its PVE name. Only a VM the state holds can be rolled back.
 */
import { VM_SNAPSHOT_TYPE, VM_TYPE } from "../provider/entry";

interface StateResource {
  readonly urn?: string;
  readonly type?: string;
  readonly outputs?: Record<string, unknown>;
}

export interface RollbackState {
  readonly deployment?: { readonly resources?: readonly StateResource[] };
}

/** A VM of the state: where the state last saw it, and the identity its mark must carry. */
export interface RollbackVm {
  readonly resourceName: string;
  readonly vmid: number;
  readonly node: string;
  readonly identityHash: string;
}

/** The resource's name: the URN's last `::` part. */
const nameOf = (urn: string | undefined): string => urn?.split("::").at(-1) ?? "";

export function findRollbackVm(state: RollbackState, name: string): RollbackVm | undefined {
  const vms = (state.deployment?.resources ?? []).filter((r) => r.type === VM_TYPE);
  const match =
    vms.find((r) => nameOf(r.urn) === name) ?? vms.find((r) => r.outputs?.["vmName"] === name);
  const { vmid, node, identityHash } = match?.outputs ?? {};
  if (typeof vmid !== "number" || typeof node !== "string" || typeof identityHash !== "string")
    return undefined;
  return { resourceName: nameOf(match?.urn), vmid, node, identityHash };
}

/** The PVE name of the snapshot: a VmSnapshot of this VM named `name`, else `name` itself. */
export function snapshotNameIn(state: RollbackState, vmid: number, name: string): string {
  const snapshot = (state.deployment?.resources ?? []).find(
    (r) => r.type === VM_SNAPSHOT_TYPE && r.outputs?.["vmid"] === vmid && nameOf(r.urn) === name,
  );
  const pveName = snapshot?.outputs?.["snapshotName"];
  return typeof pveName === "string" ? pveName : name;
}
