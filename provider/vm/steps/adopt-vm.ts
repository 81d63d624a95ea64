/**
 * What an adoption (`adopt: { vmid }`) checks before anything is written, and what it will write.
 * Shared by the preview (check reads the VM to show the plan) and by create, which checks again
 * under the VM's lock: between the two, another resource may have taken the VM.
 *
 * Refused, naming the VM and what to do: a VMID the cluster does not list, a VM on another node
 * than `node`, a template, and a VM that carries another resource's mark (another stack's, or
 * another `ProxmoxVm` of this stack that adopted it first).
 */
import type { VmConfig, VmPendingConfig } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { PermanentError } from "../../pve/errors";
import { userDescription } from "../description";
import { describe, markFor, readMark, type Owner } from "../identity";
import { configChanges, configDeletes } from "../spec/apply";
import type { Seen } from "../spec/field";
import { nicKey, nicsOf } from "../spec/network";
import { parseNic } from "../state/vm-facts";
import { locate } from "./locate";
import type { Naming, ResolvedInputs } from "./resolved-inputs";
import type { VmLocation } from "./vm-location";

/** A VM that may be adopted: where it is, its config, and whether this resource marked it. */
export interface Adoptable extends VmLocation {
  readonly known: VmPendingConfig;
  /** The VM already carries this resource's mark: an adoption interrupted before its state. */
  readonly ours: boolean;
  /**
   * The VM is this resource's own, adopted for an earlier placement: the create is a
   * replacement, which clones from `template` (the old VM goes once the new one is made).
   */
  readonly replaced?: true;
}

/** Any line a pulumi-proxmox mark of any kind (a VM's, a template's) is written on. */
const ANY_MARK = /^pulumi-proxmox:\{.*\}\s*$/m;

export async function inspectAdoption(
  ctx: OperationContext,
  vmid: number,
  inputs: Pick<ResolvedInputs, "node" | "identity">,
  naming: Pick<Naming, "identity">,
): Promise<Adoptable> {
  const row = await locate(ctx, vmid, true);
  if (row === undefined) {
    throw new PermanentError(
      "NOT_FOUND",
      `adopt.vmid: VM ${vmid} does not exist in the cluster; nothing was written. Check the VMID ` +
        "(the cluster's VM list, or `pvesh get /cluster/resources --type vm`).",
      { vmid },
    );
  }
  const known = await ctx.api.vmPending(row.node, vmid);
  const where = { node: row.node, vmid };
  const mark = readMark(known.config.description);
  if (
    mark !== undefined &&
    mark.id !== naming.identity &&
    sameOwner(mark.adoptedBy, inputs.identity)
  )
    return { ...where, known, ours: false, replaced: true };
  if (row.node !== inputs.node) {
    throw new PermanentError(
      "INVALID_PARAM",
      `node: VM ${vmid} is on node ${row.node}, but the program's node is ${inputs.node}; nothing ` +
        `was written. Set node: ${JSON.stringify(row.node)} to adopt it where it is.`,
      { node: row.node, vmid },
    );
  }
  if (known.config.template) {
    throw new PermanentError(
      "INVALID_PARAM",
      `adopt.vmid: VM ${vmid} on node ${row.node} is a template, and adopt takes over VMs; ` +
        `nothing was written. To clone it, use template: ${vmid} without adopt.`,
      where,
    );
  }
  if (mark?.id === naming.identity) return { ...where, known, ours: true };
  if (mark !== undefined || ANY_MARK.test(known.config.description ?? "")) {
    throw new PermanentError(
      "CONFLICT",
      foreignMark(vmid, row.node, mark?.adoptedBy, inputs.identity),
      where,
    );
  }
  return { ...where, known, ours: false };
}

const sameOwner = (a: Owner | undefined, b: Owner): boolean =>
  a !== undefined && a.project === b.project && a.stack === b.stack && a.name === b.name;

function foreignMark(vmid: number, node: string, by: Owner | undefined, us: Owner): string {
  const head = `adopt.vmid: VM ${vmid} on node ${node}`;
  const tail = "; nothing was written. Adopt each VM from one resource of one stack.";
  if (by !== undefined && by.project === us.project && by.stack === us.stack) {
    return `${head} is adopted by another ProxmoxVm of this stack (${by.name})${tail}`;
  }
  if (by !== undefined) {
    return `${head} is adopted by resource ${by.name} of stack ${by.project}/${by.stack}${tail}`;
  }
  return `${head} carries the mark of a VM another pulumi-proxmox resource or stack manages${tail}`;
}

/** What the adoption writes: the program's config keys that differ, and the described mark. */
export interface AdoptionWrite {
  readonly set: Record<string, string | number>;
  readonly deleted: string[];
  readonly seen: Seen;
}

export function adoptionWrite(
  config: VmConfig,
  desired: ResolvedInputs,
  naming: Naming,
): AdoptionWrite {
  const seen: Seen = {
    macs: Object.fromEntries(
      nicsOf(desired).nics.map((nic, i) => [
        nicKey(i),
        nic.mac ?? parseNic(config[nicKey(i)] as string | undefined)?.mac,
      ]),
    ),
    config,
  };
  const set = configChanges(config, desired, seen);
  // The mark goes below the VM's own text, which stays unless the program sets a description.
  const description = describe(
    typeof desired.description === "string"
      ? desired.description
      : userDescription(config.description),
    markFor(naming.identity, naming.placement, "complete", desired.identity),
  );
  if (config.description !== description) set["description"] = description;
  return { set, deleted: configDeletes(config, desired, seen), seen };
}

/**
 * The preview's lines: each key the adoption writes, the VM's value against the program's.
 * The mark is named, not shown: it is the provider's, and the description's text stays.
 */
export function describeAdoption(vm: Adoptable, write: AdoptionWrite): string[] {
  const config = vm.known.config;
  const label = `VM ${vm.vmid} on ${vm.node}`;
  const lines = Object.entries(write.set)
    .filter(
      ([key]) =>
        key !== "description" ||
        userDescription(String(write.set[key])) !== userDescription(config.description),
    )
    .map(([key, value]) => `${key}: ${show(config[key])} → ${show(value)}`);
  lines.push(...write.deleted.map((key) => `${key}: ${show(config[key])} → (removed)`));
  const what = lines.length === 0 ? "no setting changes" : lines.join("; ");
  return [
    `${label}: adopting (${vm.ours ? "resuming an interrupted adoption" : "no clone"}): ${what}; ` +
      "the pulumi-proxmox mark is added below the description; everything else stays as it is.",
  ];
}

const show = (value: unknown): string => (value === undefined ? "(unset)" : JSON.stringify(value));
