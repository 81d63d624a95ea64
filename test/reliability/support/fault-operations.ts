/**
 * The operations the fault matrix runs, each through the provider's own operation functions as
 * the runtime calls them: how the simulator is brought to the operation's start, the operation,
 * what the engine runs next (after a success, or after a failure that recorded a partial
 * state), the subject's delete, and what a converged run leaves.
 */
import type { OperationContext } from "../../../provider/pve/context";
import { checkVm } from "../../../provider/vm/operations/check";
import { createVm } from "../../../provider/vm/operations/create";
import { deleteVm } from "../../../provider/vm/operations/delete";
import type { ResolvedInputs } from "../../../provider/vm/steps/resolved-inputs";
import { updateVm } from "../../../provider/vm/operations/update";
import { parseVmState, type VmState } from "../../../provider/vm/state/vm-state";
import { createTemplate } from "../../../provider/template/create";
import { deleteTemplate } from "../../../provider/template/delete";
import { checkTemplate, type TemplateInputs } from "../../../provider/template/template-inputs";
import { readTemplate } from "../../../provider/template/read";
import type { TemplateState } from "../../../provider/template/state";
import { VmInitError } from "../../../provider/vm/init-error";
import { createVmSnapshot } from "../../../provider/snapshot/create";
import { deleteVmSnapshot } from "../../../provider/snapshot/delete";
import { resolvedSnapshot } from "../../../provider/snapshot/inputs";
import { readSnapshot } from "../../../provider/snapshot/read";
import type { SnapshotState } from "../../../provider/snapshot/state";
import type { SimulatorOptions } from "../../../simulator";
import {
  DISKS,
  LOCAL_TEMPLATE,
  templateArgs,
  WITH_IMPORTS,
  WITH_LOCAL_TEMPLATE,
} from "../../e2e/support/crash-scenarios";
import type { Expected } from "../../e2e/support/inventory";

export const FAULT_OPERATIONS = [
  "create",
  "update",
  "delete",
  "cross-node-create",
  "disk-update",
  "template-create",
  "template-delete",
  "snapshot-create",
  "snapshot-delete",
] as const;
export type FaultOperation = (typeof FAULT_OPERATIONS)[number];

/** What an operation leaves for the engine to record: a VM's, a template's or a snapshot's state. */
export type Subject = VmState | TemplateState | SnapshotState;

export interface OperationSpec<S extends Subject> {
  readonly simOptions?: SimulatorOptions | undefined;
  /** Brings the simulator to the operation's starting point; the state the operation needs. */
  prepare(ctx: OperationContext, imagesUrl: string): Promise<S | undefined>;
  /** The operation; its new state, or undefined once the subject is deleted. */
  run(ctx: OperationContext, imagesUrl: string, state: S | undefined): Promise<S | undefined>;
  /** The next `up` after the operation succeeded: the same goal again, never a second create. */
  next(ctx: OperationContext, imagesUrl: string, done: S): Promise<S | undefined>;
  /** The next `up` after a failure that handed the engine a partial state, if it did. */
  resume?(
    ctx: OperationContext,
    imagesUrl: string,
    error: unknown,
  ): (() => Promise<S | undefined>) | undefined;
  remove(ctx: OperationContext, state: S): Promise<void>;
  /** Deletes what `prepare` made for the operation to act on (a snapshot's VM), if anything. */
  cleanup?(ctx: OperationContext): Promise<void>;
  /** What a converged run leaves. */
  readonly expected: Expected;
}

const vmInputs = (extra: Record<string, unknown> = {}) =>
  checkVm(
    {},
    {
      identity: { project: "faults", stack: "matrix", name: "vm" },
      node: "pve1",
      template: 9000,
      cores: 1,
      memory: 512,
      cloudInit: { packages: ["htop"] },
      ...extra,
    },
  ).inputs as ResolvedInputs;

const templateInputs = (imagesUrl: string) =>
  checkTemplate({
    identity: { project: "faults", stack: "matrix", name: "image" },
    ...templateArgs(imagesUrl),
  }).inputs as TemplateInputs;

/**
 * A VM operation from `before` to `after` inputs (`after` undefined: a delete). A create or
 * update that failed once the VM existed (VmInitError) is finished by an update of the partial
 * state it recorded, parsed as runtime.update parses the engine's olds: a partial state it cannot
 * read is the row's finding, not the harness's crash.
 */
function vmOperation(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown> | undefined,
  simOptions?: SimulatorOptions,
): OperationSpec<VmState> {
  const goal = after ?? {};
  return {
    simOptions,
    prepare: async (ctx) => (before === undefined ? undefined : createVm(ctx, vmInputs(before))),
    run: async (ctx, _url, state) => {
      if (state === undefined) return createVm(ctx, vmInputs(goal));
      if (after !== undefined) return updateVm(ctx, state, vmInputs(after));
      await deleteVm(ctx, state);
      return undefined;
    },
    next: (ctx, _url, done) => updateVm(ctx, done, vmInputs(goal)),
    resume: (ctx, _url, error) =>
      error instanceof VmInitError && after !== undefined
        ? () => updateVm(ctx, parseVmState(error.properties), vmInputs(goal))
        : undefined,
    remove: deleteVm,
    expected: { vms: after === undefined ? 0 : 1, templates: 0 },
  };
}

/**
 * A template create or delete. A failed create records nothing: the next `up` creates again and
 * resumes from the mark; a template already made is read back and left alone.
 */
function templateOperation(del: boolean): OperationSpec<TemplateState> {
  return {
    simOptions: WITH_IMPORTS,
    prepare: async (ctx, url) => (del ? createTemplate(ctx, templateInputs(url)) : undefined),
    run: async (ctx, url, state) => {
      if (state === undefined) return createTemplate(ctx, templateInputs(url));
      await deleteTemplate(ctx, state);
      return undefined;
    },
    next: async (ctx, _url, done) => readTemplate(ctx, done),
    remove: deleteTemplate,
    expected: { vms: 0, templates: del ? 0 : 1 },
  };
}

/**
 * A VmSnapshot create or delete, of a linked clone (a qcow2 overlay PVE can snapshot). The VM is
 * the operation's ground, made by `prepare` and deleted by `cleanup` after the snapshot; every rig
 * makes the same VM (same identity), so the last one made stands for each.
 */
function snapshotOperation(del: boolean): OperationSpec<SnapshotState> {
  let vm: VmState | undefined;
  const inputs = (state: VmState) =>
    resolvedSnapshot({ resourceName: "before-upgrade", vmid: state.vmid, node: state.node });
  const ground = async (ctx: OperationContext) => {
    vm = await createVm(ctx, vmInputs({ clone: { full: false } }));
    return vm;
  };
  return {
    prepare: async (ctx) => {
      const made = await ground(ctx);
      return del ? createVmSnapshot(ctx, inputs(made)) : undefined;
    },
    run: async (ctx, _url, state) => {
      if (state !== undefined) return deleteVmSnapshot(ctx, state).then(() => undefined);
      if (vm === undefined) throw new Error("the snapshot's VM was not prepared");
      return createVmSnapshot(ctx, inputs(vm));
    },
    next: async (ctx, _url, done) => readSnapshot(ctx, done),
    remove: deleteVmSnapshot,
    cleanup: async (ctx) => {
      if (vm !== undefined) await deleteVm(ctx, vm);
    },
    expected: { vms: 1, templates: 0, snapshots: del ? 0 : 1 },
  };
}

const UPDATED = { cores: 2, cloudInit: { packages: ["curl"] } };

export const OPERATION_SPECS: Record<FaultOperation, OperationSpec<Subject>> = {
  create: vmOperation(undefined, {}),
  update: vmOperation({}, UPDATED),
  delete: vmOperation({}, undefined),
  "cross-node-create": vmOperation(
    undefined,
    { node: "pve2", template: LOCAL_TEMPLATE },
    WITH_LOCAL_TEMPLATE,
  ),
  "disk-update": vmOperation({ disks: DISKS.before }, { disks: DISKS.after }),
  "template-create": templateOperation(false),
  "template-delete": templateOperation(true),
  "snapshot-create": snapshotOperation(false),
  "snapshot-delete": snapshotOperation(true),
} as Record<FaultOperation, OperationSpec<Subject>>;
