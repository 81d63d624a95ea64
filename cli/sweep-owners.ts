/**
 * Which VM and CloudImageTemplate identities the given stacks own, read from their states (`pulumi stack export` through
 * the automation API, or an exported file). A state that cannot be read stops the sweep: guessing
 * would make that stack's VMs look orphaned.
 *
 * Only the state's resources own a VM. A pending create is what an interrupted run left behind:
 * `pulumi destroy` does not delete it, so its VM would leak unseen if it counted as owned. Its
 * identities are returned apart, so that sweep can list those VMs as orphans of an interrupted
 * run and `pulumi-proxmox up` can resume them.
 */
import { readFileSync } from "node:fs";
import {
  identityOfInputs,
  TEMPLATE_TYPE,
  templateIdentityOfInputs,
  VM_TYPE,
} from "../provider/entry";
import { selectStack, type StackSelection } from "./automation";

interface StateResource {
  readonly type?: string;
  readonly inputs?: Record<string, unknown>;
  readonly outputs?: Record<string, unknown>;
}

export interface Deployment {
  readonly deployment?: {
    readonly resources?: readonly StateResource[];
    readonly pending_operations?: readonly {
      readonly resource?: StateResource;
      /** `creating`, `updating`, `deleting`, `reading`, … */
      readonly type?: string;
    }[];
  };
}

/** A resource type whose identities sweep reads, and how a pending create's inputs name one. */
interface OwnedType {
  readonly type: string;
  identityOfInputs(inputs: Record<string, unknown>): string | undefined;
}

const VMS: OwnedType = { type: VM_TYPE, identityOfInputs };

const TEMPLATES: OwnedType = { type: TEMPLATE_TYPE, identityOfInputs: templateIdentityOfInputs };

/** The identity hashes of every ProxmoxVm among the deployment's resources (not its pending operations). */
export function identitiesIn(state: Deployment): Set<string> {
  return identitiesOf(state.deployment?.resources ?? [], VMS);
}

/**
 * The identities of the ProxmoxVm creates an interrupted run left pending, less those a resource
 * of the state holds (a pending create next to its resource is not lost, e.g. a `--replace`).
 */
export function pendingCreateIdentitiesIn(state: Deployment): Set<string> {
  const owned = identitiesIn(state);
  return new Set([...identitiesOf(pendingCreates(state), VMS)].filter((id) => !owned.has(id)));
}

/** The resources of the creates a run left pending (the engine records a create before it runs). */
function pendingCreates(state: Deployment): StateResource[] {
  return (state.deployment?.pending_operations ?? [])
    .filter((op) => op.type === undefined || op.type === "creating")
    .flatMap((op) => op.resource ?? []);
}

/** The identities of `resources` of one type: from the outputs, or a pending create's inputs. */
function identitiesOf(resources: readonly StateResource[], owned: OwnedType): Set<string> {
  const found = new Set<string>();
  for (const resource of resources) {
    if (resource.type !== owned.type) continue;
    const hash = resource.outputs?.["identityHash"];
    if (typeof hash === "string") found.add(hash);
    // A create the engine recorded as pending has inputs but no outputs yet.
    const fromInputs = resource.inputs && owned.identityOfInputs(resource.inputs);
    if (fromInputs !== undefined) found.add(fromInputs);
  }
  return found;
}

export interface OwnerSources {
  readonly stacks: readonly StackSelection[];
  /** Files written by `pulumi stack export`. */
  readonly stateFiles?: readonly string[] | undefined;
  /** The states of {@link stacks} and {@link stateFiles}, when already read (see {@link readStates}). */
  readonly states?: readonly Deployment[] | undefined;
}

/**
 * Every given state: the stacks' in their order, then the files'. Each is read once per call; a
 * state that cannot be read rejects.
 */
export async function readStates(sources: OwnerSources): Promise<readonly Deployment[]> {
  if (sources.states !== undefined) return sources.states;
  const states: Deployment[] = [];
  for (const selection of sources.stacks) {
    states.push((await (await selectStack(selection)).exportStack()) as Deployment);
  }
  for (const file of sources.stateFiles ?? []) {
    states.push(JSON.parse(readFileSync(file, "utf8")) as Deployment);
  }
  return states;
}

export interface Owners {
  /** Identities a resource of some given state holds. */
  readonly owned: Set<string>;
  /** Identities only a pending create of some given state holds: an interrupted run's. */
  readonly interrupted: Set<string>;
  /** The same for the states' CloudImageTemplates. */
  readonly templates: TemplateOwners;
}

/** Reads every state; rejects if any cannot be read. */
export async function readOwners(sources: OwnerSources): Promise<Owners> {
  const states = await readStates(sources);
  const owned = new Set(states.flatMap((state) => [...identitiesIn(state)]));
  const interrupted = new Set(
    states.flatMap((state) => [...pendingCreateIdentitiesIn(state)]).filter((id) => !owned.has(id)),
  );
  return { owned, interrupted, templates: templateOwners(states) };
}

/** The identities the given states own (their resources; pending creates do not count). */
export async function ownedIdentities(sources: OwnerSources): Promise<Set<string>> {
  return (await readOwners(sources)).owned;
}

export interface TemplateOwners {
  /** Template identities a resource of some given state holds. */
  readonly owned: Set<string>;
  /** Template identities only a pending create holds: an interrupted run's. */
  readonly interrupted: Set<string>;
}

export function templateOwners(states: readonly Deployment[]): TemplateOwners {
  const owned = new Set(
    states.flatMap((state) => [...identitiesOf(state.deployment?.resources ?? [], TEMPLATES)]),
  );
  const pending = states.flatMap(pendingCreates);
  const interrupted = new Set([...identitiesOf(pending, TEMPLATES)].filter((id) => !owned.has(id)));
  return { owned, interrupted };
}
