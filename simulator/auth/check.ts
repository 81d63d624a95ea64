import type { SimContext } from "../context.js";
import { permError } from "../http/pve-error.js";
import { parsePropertyString } from "../model/vm-config.js";

/**
 * PVE's `check` (all of `privs`, first missing one named) and `check_any` (`|`-joined list):
 * `Permission check failed (/vms/100, VM.Audit)`.
 */
export function requirePrivs(
  sim: SimContext,
  tokenId: string,
  path: string,
  privs: readonly string[],
): void {
  const have = sim.tokens.privileges(tokenId, path);
  const missing = privs.find((p) => !have.has(p));
  if (missing !== undefined) throw permError(`${path}, ${missing}`);
}

export function requireAnyPriv(
  sim: SimContext,
  tokenId: string,
  path: string,
  privs: readonly string[],
): void {
  const have = sim.tokens.privileges(tokenId, path);
  if (!privs.some((p) => have.has(p))) throw permError(`${path}, ${privs.join("|")}`);
}

export function hasPriv(sim: SimContext, tokenId: string, path: string, priv: string): boolean {
  return sim.tokens.has(tokenId, path, priv);
}

/**
 * A NIC's bridge (8.0 and later): `SDN.Use` on `/sdn/zones/localnetwork/<bridge>`, or on
 * `…/<bridge>/<tag>` when the NIC sets a VLAN tag. Plain bridges are the `localnetwork` zone.
 */
export function requireBridgeAccess(sim: SimContext, tokenId: string, nic: string): void {
  if (!sim.options.profile.bridgeNeedsSdnUse) return;
  const { bridge, tag } = parsePropertyString(nic).opts;
  if (bridge === undefined) return;
  const path = `/sdn/zones/localnetwork/${bridge}${tag === undefined ? "" : `/${tag}`}`;
  requirePrivs(sim, tokenId, path, ["SDN.Use"]);
}

/** A route permission: one privilege on a path built from the raw parameters. */
export function perm(privilege: string, path: (raw: Record<string, unknown>) => string) {
  return (sim: SimContext, input: { tokenId: string; raw: Record<string, unknown> }): void =>
    requirePrivs(sim, input.tokenId, path(input.raw), [privilege]);
}

export const vmPath = (raw: Record<string, unknown>): string => `/vms/${String(raw["vmid"])}`;
export const storagePath = (raw: Record<string, unknown>): string =>
  `/storage/${String(raw["storage"])}`;
