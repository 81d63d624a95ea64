/**
 * What the `pulumi-proxmox` CLI asks of the provider, as plain functions of what the CLI knows: a
 * VM found by its mark, a stored input set. The CLI calls these instead of building state objects
 * of its own, so a change of the state or of the spec cannot leave the CLI behind.
 */
import type { OperationContext } from "./pve/context";
import { identityOf } from "./vm/identity";
import { deleteVm } from "./vm/operations/delete";
import { DEFAULTS } from "./vm/spec/derive";
import { FIELDS, type FieldName } from "./vm/spec/fields";

export { RESUME_ENV } from "./vm/steps/resume-list";
/** How every message names a VM (`VM 13695 on pve1`): the CLI uses the same form. */
export { vmLabel } from "./pve/errors";

/** A VM the CLI found by its mark: its VMID, the identity and name the mark and VM carry. */
export interface VmToDelete {
  readonly vmid: number;
  readonly identity: string;
  readonly name: string;
  readonly isoStorage: string;
}

/**
 * Deletes a VM the way `pulumi destroy` does (ownership check, stop, its seeds on every node,
 * destroy), with `taskMs` for each task.
 */
export function deleteMarkedVm(
  ctx: OperationContext,
  vm: VmToDelete,
  taskMs: number,
): Promise<void> {
  return deleteVm(ctx, {
    vmid: vm.vmid,
    identityHash: vm.identity,
    vmName: vm.name,
    isoStorage: vm.isoStorage,
    timeouts: { taskMs },
  });
}

/**
 * The identity a stored input set stands for (a pending create has inputs but no outputs yet);
 * undefined when the owner or the placement is missing. A placement input the inputs leave out
 * takes the spec's default, as `check` would have filled it.
 */
export function identityOfInputs(inputs: Readonly<Record<string, unknown>>): string | undefined {
  const owner = inputs["identity"] as
    { project?: unknown; stack?: unknown; name?: unknown } | undefined;
  const placed = (name: FieldName) => inputs[name] ?? DEFAULTS[name];
  const node = placed("node");
  const template = placed("template");
  const storage = placed("storage");
  const isoStorage = placed("isoStorage");
  if (
    typeof owner?.project !== "string" ||
    typeof owner.stack !== "string" ||
    typeof owner.name !== "string" ||
    typeof node !== "string" ||
    (typeof template !== "string" && typeof template !== "number") ||
    typeof isoStorage !== "string"
  ) {
    return undefined;
  }
  return identityOf(
    { project: owner.project, stack: owner.stack, name: owner.name },
    { node, template, storage: typeof storage === "string" ? storage : undefined, isoStorage },
  );
}

/** An input's value as `diff` compares it: normalised the way PVE stores it (tags). */
export function comparableInput(key: string, value: unknown): unknown {
  const spec = (FIELDS as Readonly<Record<string, (typeof FIELDS)[FieldName]>>)[key];
  return spec !== undefined && "normalize" in spec && value !== undefined
    ? spec.normalize(value)
    : value;
}
