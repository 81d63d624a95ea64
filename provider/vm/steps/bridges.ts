/**
 * Each NIC's bridge, looked up on the VM's node before anything is cloned. PVE accepts any bridge
 * name in a VM's config and fails only its start (pve-common `PVE::Network`: "bridge 'vmbr9' does
 * not exist"), after the clone, the seed and the config are done; the lookup makes that a
 * failure of the property instead.
 *
 * One request: `GET /nodes/{node}/network?type=any_bridge` lists Linux and OVS bridges and, where
 * the release has SDN, the vnets. Any user may call it, but from PVE 8.0 it lists a bridge only
 * to a token with SDN.Audit or SDN.Use on `/sdn/zones/localnetwork/<bridge>` — which using the
 * bridge needs anyway — so "not listed" means "missing, or not usable by this token".
 */
import type { CheckFailure } from "../../inputs/check-failure";
import type { OperationContext } from "../../pve/context";
import { PermanentError } from "../../pve/errors";
import { containsUnknown } from "../../inputs/unknown";
import { nicsOf, type NetworkInputs, type NicInputs } from "../spec/network";

/** What the lookup reads of the inputs: the node and the NICs, in either form. */
export interface BridgeInputs {
  readonly node: string;
  readonly network: NetworkInputs;
  readonly networks?: readonly NicInputs[] | undefined;
}

/** Each NIC's bridge with the property the program wrote it under. */
export function nicBridges(inputs: BridgeInputs): { property: string; bridge: string }[] {
  return nicsOf(inputs).nics.map((nic, i) => ({
    property: inputs.networks === undefined ? "network.bridge" : `networks[${i}].bridge`,
    bridge: nic.bridge,
  }));
}

/** A failure per NIC whose bridge the node does not list to this token. */
export async function missingBridges(
  ctx: OperationContext,
  inputs: BridgeInputs,
): Promise<CheckFailure[]> {
  const wanted = nicBridges(inputs);
  if (wanted.length === 0) return [];
  const listed = (await ctx.api.nodeBridges(inputs.node)).map((row) => row.iface);
  const there = new Set(listed);
  return wanted
    .filter(({ bridge }) => !there.has(bridge))
    .map(({ property, bridge }) => ({
      property,
      reason:
        `bridge ${bridge} is not on node ${inputs.node}, or the API token may not use it ` +
        `(bridges it can use there: ${listed.join(", ") || "none"}). Set ${property} to one ` +
        `of them, create ${bridge} on ${inputs.node} (System → Network), or, on PVE 8 and ` +
        `later, grant the token SDN.Use on /sdn/zones/localnetwork/${bridge}.`,
    }));
}

/**
 * The lookup as `check` runs it: only for a new VM or NICs whose node or bridges changed (an
 * unchanged stack's preview sends no request), never for unknown values, and silent when the
 * lookup itself fails — create looks again and reports that failure.
 */
export async function bridgeFailures(
  context: () => Promise<OperationContext>,
  olds: Readonly<Record<string, unknown>>,
  inputs: Readonly<Record<string, unknown>>,
): Promise<CheckFailure[]> {
  if (containsUnknown(inputs["node"]) || containsUnknown(inputs["network"])) return [];
  if (containsUnknown(inputs["networks"])) return [];
  const now = inputs as unknown as BridgeInputs;
  if (sameBridges(olds, now)) return [];
  try {
    return await missingBridges(await context(), now);
  } catch {
    return [];
  }
}

function sameBridges(olds: Readonly<Record<string, unknown>>, now: BridgeInputs): boolean {
  if (olds["node"] !== now.node || olds["network"] === undefined) return false;
  try {
    const before = nicBridges(olds as unknown as BridgeInputs).map((nic) => nic.bridge);
    return JSON.stringify(before) === JSON.stringify(nicBridges(now).map((nic) => nic.bridge));
  } catch {
    return false;
  }
}

/** The lookup as create's preflight runs it: the first missing bridge fails the create. */
export async function assertBridges(ctx: OperationContext, inputs: BridgeInputs): Promise<void> {
  const [first] = await missingBridges(ctx, inputs);
  if (first !== undefined) {
    throw new PermanentError("INVALID_PARAM", `${first.property}: ${first.reason}`, {
      node: inputs.node,
    });
  }
}
