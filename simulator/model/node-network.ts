/**
 * A node's network interfaces as `/etc/network/interfaces` declares them (pve-common
 * `PVE::INotify::read_etc_network_interfaces`): one physical port and the node's bridges. The
 * first bridge carries the port, as the installer sets up `vmbr0`; the others are isolated.
 */
import type { NodeState } from "./cluster.js";

/** One row of `GET /nodes/{node}/network`, with the fields PVE lists for that type. */
export type NetworkIface = Readonly<Record<string, string | number | readonly string[]>>;

/** The physical port every simulated node has. */
const PORT = "eno1";

export function nodeIfaces(node: NodeState): NetworkIface[] {
  const bridges = [...node.bridges].sort();
  const common = { method: "manual", method6: "manual", families: ["inet"], active: 1 };
  return [
    { iface: PORT, type: "eth", ...common, exists: 1, priority: 1 },
    ...bridges.map((iface, index) => ({
      iface,
      type: "bridge",
      ...common,
      autostart: 1,
      bridge_ports: index === 0 ? PORT : "",
      bridge_stp: "off",
      bridge_fd: "0",
      priority: index + 2,
    })),
  ];
}

/** A NIC's bridge and the tap's name as qemu-server builds it (`tap<vmid>i<n>`). */
export interface BridgeProblem {
  readonly key: string;
  readonly bridge: string;
}

/**
 * The first NIC whose bridge the node lacks. QEMU runs the bridge script for each NIC in order
 * at start, so the first such NIC is the one whose script fails.
 */
export function missingBridge(
  node: NodeState,
  nics: readonly (readonly [key: string, bridge: string | undefined])[],
): BridgeProblem | undefined {
  for (const [key, bridge] of nics) {
    if (bridge !== undefined && !node.bridges.has(bridge)) return { key, bridge };
  }
  return undefined;
}
