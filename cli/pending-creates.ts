/**
 * Pending creates: what a killed `up` leaves in the stack's state. The engine records a create
 * before it calls the provider and replaces the record with the resource at its checkpoint; a
 * kill in between leaves the record alone, while the VM may exist on Proxmox, even complete.
 * `pulumi destroy` does not delete such a VM, and the next `pulumi up` refuses it (CONFLICT),
 * so `drift`, `up` and `destroy` look for them first.
 */
import {
  connectionInput,
  parseConnectionConfig,
  type ConnectionConfig,
} from "../provider/pve/config";
import type { PulumiStack } from "./automation";
import { pendingCreateIdentitiesIn, VM_TYPE, type Deployment } from "./sweep-owners";

export interface PendingCreates {
  /** The exported state the identities were read from. */
  readonly state: Deployment;
  /** Identities only a pending create holds (no resource of the state has them). */
  readonly identities: ReadonlySet<string>;
}

export async function readPendingCreates(stack: PulumiStack): Promise<PendingCreates> {
  const state = (await stack.exportStack()) as Deployment;
  return { state, identities: pendingCreateIdentitiesIn(state) };
}

/**
 * Drops the ProxmoxVm pending creates from the state (`pulumi stack import` of the export without
 * them); other pending operations are kept. Run once the VMs are resumed or deleted.
 */
export async function clearPendingVmCreates(stack: PulumiStack, state: Deployment): Promise<void> {
  const deployment = state.deployment ?? {};
  const kept = (deployment.pending_operations ?? []).filter(
    (op) => op.resource?.type !== VM_TYPE || (op.type !== undefined && op.type !== "creating"),
  );
  await stack.importStack({
    ...(state as object),
    deployment: { ...deployment, pending_operations: kept },
  } as Parameters<PulumiStack["importStack"]>[0]);
}

/** What the user runs to recover, said the same way by drift, up and destroy. */
export function recoveryAdvice(stackName: string, count: number): string {
  return (
    `stack ${stackName} has ${count} ProxmoxVm create(s) that an interrupted run left pending ` +
    "(their VMs may exist on Proxmox but are not in the state). " +
    `Run \`pulumi-proxmox up --stack ${stackName}\` to resume and keep them, ` +
    `or \`pulumi-proxmox destroy --stack ${stackName}\` to delete them with the stack.`
  );
}

/** The connection the stack's provider uses: `proxmox:*` stack config, else PROXMOX_VE_*. */
export async function stackConnection(
  stack: PulumiStack,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ConnectionConfig> {
  const config = await stack.getAllConfig();
  return parseConnectionConfig(
    connectionInput((key) => config[key]?.value),
    { env },
  );
}
