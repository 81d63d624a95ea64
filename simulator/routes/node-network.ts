/**
 * `GET /nodes/{node}/network` (pve-manager `PVE/API2/Network.pm`, `index`): the node's
 * interfaces, optionally of one `type`. Every user may call it (`permissions => { user => 'all' }`),
 * but from 8.0 a bridge is listed only to whom may see or use it: `check_sdn_bridge` with
 * SDN.Audit or SDN.Use on `/sdn/zones/localnetwork/<bridge>` or on one of its VLANs
 * (pve-access-control `PVE/RPCEnvironment.pm`). root@pam sees every bridge.
 */
import type { SimContext } from "../context.js";
import { NODE, paramError, type Route } from "../http/index.js";
import { nodeIfaces, type NetworkIface } from "../model/node-network.js";

const BRIDGE_TYPES = new Set(["bridge", "OVSBridge"]);
const SEE_BRIDGE = ["SDN.Audit", "SDN.Use"];

/** Whether `type` keeps the interface: `any_bridge` and `any_local_bridge` keep bridges. */
function matches(type: string | undefined, iface: NetworkIface): boolean {
  if (type === undefined || type === "include_sdn") return true;
  const own = String(iface["type"]);
  return type === own || (/^any(_local)?_bridge$/.test(type) && BRIDGE_TYPES.has(own));
}

/** check_sdn_bridge: the privilege on the bridge itself or on any VLAN below it. */
function maySeeBridge(sim: SimContext, tokenId: string, bridge: string): boolean {
  if (!sim.options.profile.bridgeNeedsSdnUse || tokenId === "root@pam") return true;
  const path = `/sdn/zones/localnetwork/${bridge}`;
  const below = sim.tokens.aclPaths(tokenId).filter((acl) => acl.startsWith(`${path}/`));
  return [path, ...below].some((at) => {
    const have = sim.tokens.privileges(tokenId, at);
    return SEE_BRIDGE.some((priv) => have.has(priv));
  });
}

export const nodeNetworkRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/nodes/{node}/network",
    params: { node: NODE, type: { type: "string", optional: true } },
    handler: ({ sim, tokenId, params }) => {
      const node = sim.cluster.nodes.get(String(params["node"]));
      if (node === undefined) return [];
      const type = params["type"] === undefined ? undefined : String(params["type"]);
      // The enumeration differs by release, so it is checked here rather than in `params`.
      const types = sim.options.profile.networkTypeFilters;
      if (type !== undefined && !types.includes(type))
        throw paramError({
          type: `value '${type}' does not have a value in the enumeration '${types.join(", ")}'`,
        });
      return nodeIfaces(node).filter(
        (iface) =>
          matches(type, iface) &&
          (!BRIDGE_TYPES.has(String(iface["type"])) ||
            maySeeBridge(sim, tokenId, String(iface["iface"]))),
      );
    },
  },
];
