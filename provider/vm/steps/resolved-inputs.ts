/**
 * Inputs as create and update see them: parsed, defaults applied, and known (the engine never
 * calls create or update with unknown values).
 */
import type { UNKNOWN } from "../../inputs/unknown";
import { identityOf, placementIn, vmNameFor, type Placement } from "../identity";
import { DEFAULTS, type VmInputs } from "../spec/derive";

/** The parsed inputs with no unknown left: the spec's types, without Pulumi's sentinel. */
export type ResolvedInputs = {
  readonly [K in keyof VmInputs]: Exclude<VmInputs[K], typeof UNKNOWN>;
};

export interface Naming {
  readonly placement: Placement;
  readonly identity: string;
  readonly vmName: string;
}

export function namingOf(inputs: ResolvedInputs): Naming {
  const placement = placementIn(inputs);
  const identity = identityOf(inputs.identity, placement);
  const vmName =
    typeof inputs.name === "string" ? inputs.name : vmNameFor(inputs.identity, identity);
  return { placement, identity, vmName };
}

/**
 * The inputs with every spec default the program left out: what a VM this stack clones gets.
 * An adoption's inputs lack the defaults of what PVE sees (check-adopt.ts); a VM cloned for
 * such a resource (a replacement) is converged like any clone.
 */
export function withDefaults(inputs: ResolvedInputs): ResolvedInputs {
  const filled: Record<string, unknown> = { ...inputs };
  for (const [name, value] of Object.entries(DEFAULTS)) filled[name] ??= value;
  return filled as ResolvedInputs;
}

/**
 * The naming of a VM taken over by `adopt: { vmid }`: the identity of its placement, as for a
 * clone, and the name the VM already has (an adoption never renames it).
 */
export function adoptionNaming(inputs: ResolvedInputs, vmName: string | undefined): Naming {
  const placement = placementIn(inputs);
  return { placement, identity: identityOf(inputs.identity, placement), vmName: vmName ?? "" };
}

/** The naming a VM was created with, as its state recorded it (never recomputed later). */
export function namingFromState(
  state: { identityHash: string; vmName: string },
  inputs: ResolvedInputs,
): Naming {
  return {
    placement: placementIn(inputs),
    identity: state.identityHash,
    vmName: state.vmName,
  };
}
