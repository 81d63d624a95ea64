/**
 * Node and cluster status, the first calls client libraries make to get a node handle:
 * pve-manager `PVE/API2/Nodes.pm` (`status`) and `PVE/API2/Cluster.pm` (`get_status`).
 */
import { requirePrivs } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { NODE, type Route } from "../http/index.js";
import { CLUSTER, nodeStatus } from "../model/host.js";

/** The address a node's name resolves to; a documentation range, never contacted. */
function nodeAddress(index: number): string {
  return `192.0.2.${index + 11}`;
}

export const nodeStatusRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/nodes/{node}/status",
    params: { node: NODE },
    permission: (sim, { tokenId, raw }) =>
      requirePrivs(sim, tokenId, `/nodes/${String(raw["node"])}`, ["Sys.Audit"]),
    handler: ({ sim, params }) => {
      const node = sim.cluster.nodes.get(String(params["node"]));
      // The server answered for unknown and unreachable nodes before the handler runs.
      if (node === undefined) return null;
      return {
        ...nodeStatus(node),
        pveversion: `pve-manager/${sim.options.profile.version.version}/${sim.options.profile.version.repoid}`,
      };
    },
  },
  {
    method: "GET",
    path: "/cluster/status",
    params: {},
    permission: (sim, { tokenId }) => requirePrivs(sim, tokenId, "/", ["Sys.Audit"]),
    handler: ({ sim }) => {
      const nodes = [...sim.cluster.nodes.values()];
      const online = nodes.filter((n) => n.down === undefined).length;
      return [
        {
          type: "cluster",
          id: "cluster",
          name: CLUSTER.name,
          nodes: nodes.length,
          version: CLUSTER.configVersion,
          quorate: online * 2 > nodes.length ? 1 : 0,
        },
        ...nodes.map((node, index) => ({
          type: "node",
          id: `node/${node.name}`,
          name: node.name,
          nodeid: index + 1,
          ip: nodeAddress(index),
          // The first node answers the API, as the node the client connected to.
          local: index === 0 ? 1 : 0,
          online: node.down === undefined ? 1 : 0,
          level: "",
        })),
      ];
    },
  },
];
