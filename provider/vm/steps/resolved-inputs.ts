/**
 * Inputs as create and update see them: parsed, defaults applied, and known (the engine never
 * calls create or update with unknown values).
 */
import { identityOf, vmNameFor, type Placement } from "../identity";
import type { UNKNOWN } from "../../inputs/unknown";
import type { VmInputs } from "../spec/derive";

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
  const placement = placementOf(inputs);
  const identity = identityOf(inputs.identity, placement);
  const vmName =
    typeof inputs.name === "string" ? inputs.name : vmNameFor(inputs.identity, identity);
  return { placement, identity, vmName };
}

/** The naming a VM was created with, as its state recorded it (never recomputed later). */
export function namingFromState(
  state: { identityHash: string; vmName: string },
  inputs: ResolvedInputs,
): Naming {
  return {
    placement: placementOf(inputs),
    identity: state.identityHash,
    vmName: state.vmName,
  };
}

function placementOf(inputs: ResolvedInputs): Placement {
  return {
    node: inputs.node,
    template: inputs.template,
    storage: inputs.storage,
    isoStorage: inputs.isoStorage,
    clone: inputs.clone,
  };
}
