/**
 * Which VM identities the given stacks own, read from their states (`pulumi stack export` through
 * the automation API, or an exported file). A state that cannot be read stops the sweep: guessing
 * would make that stack's VMs look orphaned.
 */
import { readFileSync } from "node:fs";
import { identityOf } from "../provider/identity";
import { selectStack, type StackSelection } from "./automation";

export const VM_TYPE = "pulumi-nodejs:dynamic/proxmox:ProxmoxVm";

interface StateResource {
  readonly type?: string;
  readonly inputs?: Record<string, unknown>;
  readonly outputs?: Record<string, unknown>;
}

interface Deployment {
  readonly deployment?: {
    readonly resources?: readonly StateResource[];
    readonly pending_operations?: readonly { readonly resource?: StateResource }[];
  };
}

/** The identity hashes of every ProxmoxVm in an exported deployment, pending creates included. */
export function identitiesIn(state: Deployment): Set<string> {
  const found = new Set<string>();
  const resources = [
    ...(state.deployment?.resources ?? []),
    ...(state.deployment?.pending_operations ?? []).flatMap((op) => op.resource ?? []),
  ];
  for (const resource of resources) {
    if (resource.type !== VM_TYPE) continue;
    const hash = resource.outputs?.["identityHash"];
    if (typeof hash === "string") found.add(hash);
    // A create the engine recorded as pending has inputs but no outputs yet.
    const fromInputs = identityFromInputs(resource.inputs);
    if (fromInputs !== undefined) found.add(fromInputs);
  }
  return found;
}

function identityFromInputs(inputs: Record<string, unknown> | undefined): string | undefined {
  const owner = inputs?.["identity"] as
    { project?: unknown; stack?: unknown; name?: unknown } | undefined;
  const node = inputs?.["node"];
  const template = inputs?.["template"];
  if (
    typeof owner?.project !== "string" ||
    typeof owner.stack !== "string" ||
    typeof owner.name !== "string" ||
    typeof node !== "string" ||
    (typeof template !== "string" && typeof template !== "number")
  ) {
    return undefined;
  }
  const storage = inputs?.["storage"];
  const isoStorage = inputs?.["isoStorage"];
  return identityOf(
    { project: owner.project, stack: owner.stack, name: owner.name },
    {
      node,
      template,
      storage: typeof storage === "string" ? storage : undefined,
      isoStorage: typeof isoStorage === "string" ? isoStorage : "local",
    },
  );
}

export interface OwnerSources {
  readonly stacks: readonly StackSelection[];
  /** Files written by `pulumi stack export`. */
  readonly stateFiles?: readonly string[] | undefined;
}

/** Reads every state; rejects if any cannot be read. */
export async function ownedIdentities(sources: OwnerSources): Promise<Set<string>> {
  const owned = new Set<string>();
  for (const selection of sources.stacks) {
    const stack = await selectStack(selection);
    for (const id of identitiesIn((await stack.exportStack()) as Deployment)) owned.add(id);
  }
  for (const file of sources.stateFiles ?? []) {
    for (const id of identitiesIn(JSON.parse(readFileSync(file, "utf8")) as Deployment))
      owned.add(id);
  }
  return owned;
}
