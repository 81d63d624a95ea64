/**
 * What the `pulumi-proxmox` CLI asks of the provider, as plain functions of what the CLI knows: a
 * VM found by its mark, a stored input set. The CLI calls these instead of building state objects
 * of its own, so a change of the state or of the spec cannot leave the CLI behind.
 */
import {
  connectionFromConfig as fromConfig,
  type ConfigReader,
  type ConnectionConfig,
} from "./pve/config";
import type { ConnectOptions, Connected } from "./pve/connection";
import type { OperationContext } from "./pve/context";
import { identityInputSchema } from "./inputs/unknown";
import { identityOf, placementOfStored } from "./vm/identity";
import { checkVm } from "./vm/operations/check";
import {
  TEMPLATE_TYPE as TEMPLATE_RESOURCE_TYPE,
  VM_TYPE as VM_RESOURCE_TYPE,
} from "./glue/resource-types";
import { deleteVm } from "./vm/operations/delete";
import { deleteImage, deleteTemplate } from "./template/delete";
import { checkTemplate, type TemplateInputs } from "./template/template-inputs";
import { planOf } from "./template/mark";
import { FIELDS, type FieldName } from "./vm/spec/fields";

export { RESUME_ENV } from "./vm/steps/resume-list";
export { seedOwnerOf } from "./vm/identity";
export { TEMPLATE_TYPE, VM_SNAPSHOT_TYPE, VM_TYPE } from "./glue/resource-types";
export { listSnapshots, rollbackToSnapshot } from "./pve/snapshot-tasks";
/** How every message names a VM (`VM 13695 on pve1`): the CLI uses the same form. */
export { vmLabel } from "./pve/errors";
export { deleteSnapshot } from "./pve/snapshot-tasks";
export { isLeftOver as isLeftOverSnapshot } from "./vm/rollback/snapshot-name";

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
  const owner = identityInputSchema.safeParse(inputs["identity"]);
  const placement = placementOfStored(inputs);
  return owner.success && placement !== undefined ? identityOf(owner.data, placement) : undefined;
}

/**
 * A resource's inputs with the defaults `check` fills in. The engine stores (and reports) the
 * inputs as the program wrote them, so a report of what the program wants resolves them first.
 */
export function resolvedInputs(
  type: string,
  inputs: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  if (type === VM_RESOURCE_TYPE) return checkVm({}, inputs).inputs;
  if (type === TEMPLATE_RESOURCE_TYPE) return checkTemplate(inputs).inputs;
  return { ...inputs };
}

/** An input's value as `diff` compares it: normalised the way PVE stores it (tags). */
export function comparableInput(key: string, value: unknown): unknown {
  const spec = (FIELDS as Readonly<Record<string, (typeof FIELDS)[FieldName]>>)[key];
  return spec !== undefined && "normalize" in spec && value !== undefined
    ? spec.normalize(value)
    : value;
}

/** A template the CLI found by its mark (sweep): what its delete needs. */
export interface TemplateToDelete {
  readonly vmid: number;
  readonly name: string;
  readonly identity: string;
  /** The image its mark names, e.g. `local:import/pp-tmpl-0123456789abcdef.qcow2`. */
  readonly image: string;
  /** The storage of its boot disk. */
  readonly storage: string;
}

/**
 * Deletes a template the way `pulumi destroy` does: refused (CONFLICT) while linked clones of it
 * exist, else destroyed and its image deleted on every node.
 */
export function deleteMarkedTemplate(
  ctx: OperationContext,
  template: TemplateToDelete,
  taskMs: number,
): Promise<void> {
  return deleteTemplate(ctx, {
    vmid: template.vmid,
    vmName: template.name,
    identityHash: template.identity,
    imageVolid: template.image,
    importStorage: template.image.split(":")[0] ?? "",
    storage: template.storage,
    timeouts: { taskMs },
  });
}

/** Deletes a downloaded image no template names, on every node that holds it. */
export function deleteOrphanImage(
  ctx: OperationContext,
  image: { readonly volid: string; readonly storage: string },
  taskMs: number,
): Promise<void> {
  return deleteImage(ctx, { imageVolid: image.volid, importStorage: image.storage }, taskMs);
}

/** The identity a CloudImageTemplate's stored inputs stand for; undefined when they do not check. */
export function templateIdentityOfInputs(
  inputs: Readonly<Record<string, unknown>>,
): string | undefined {
  const checked = checkTemplate(inputs);
  return checked.failures.length === 0
    ? planOf(checked.inputs as TemplateInputs).identity
    : undefined;
}

/**
 * Connects to Proxmox with the provider's own API stack ({@link connectNow}). Loaded on the
 * first call, so what only imports this module (the components, a program) never loads the HTTP
 * client.
 */
export async function connect(
  connection: ConnectionConfig,
  options: ConnectOptions,
): Promise<Connected> {
  const { connect: connectNow } = await import("./pve/connection.js");
  return connectNow(connection, options);
}

/** The connection a `proxmox:*` config describes (`PROXMOX_VE_*` for what it leaves unset). */
export function connectionFromConfig(
  config: ConfigReader,
  env: Readonly<Record<string, string | undefined>>,
): ConnectionConfig {
  return fromConfig(config, { env });
}

// What else the CLI and the components use of the provider: this module is their one door
// (test/package/provider-door.test.ts holds them to it).
export type {
  ClusterVm,
  NodeStorage,
  Permissions,
  ProxmoxApi,
  VmConfig,
} from "./pve/api/proxmox-api";
export { canonical } from "./inputs/canonical";
export type { CheckFailure } from "./inputs/check-failure";
export {
  loginName,
  parseConnectionConfig,
  type ConfigReader,
  type ConnectionConfig,
} from "./pve/config";
export type { ConnectOptions, Connected } from "./pve/connection";
export type { OperationContext } from "./pve/context";
export { hasCode } from "./pve/errors";
export { ipv4Address, ipv4Cidr } from "./inputs/formats";
export { readMark } from "./vm/identity";
export { failuresOfIssues } from "./vm/operations/check";
export { parseSeedName } from "./vm/seed/seed-name";
export { TEMPLATE_STORAGE_DEFAULTS } from "./template/template-inputs";
export { imageIdentityOf, readTemplateMark } from "./template/mark";
export { IMPORT_MIN_RELEASE, importsDiskImages } from "./template/preflight";
export {
  importVm,
  importVms,
  type ImportFilter,
  type ImportedVm,
  type SkippedVm,
} from "./vm/operations/import";
