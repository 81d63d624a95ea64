/** The seam's calls for what a VM's devices attach to on a node: bridges and resource mappings. */

/** A bridge a node's NICs can be plugged into: a Linux or OVS bridge, or an SDN vnet. */
export interface NodeBridge {
  readonly iface: string;
  /** `bridge`, `OVSBridge` or `vnet`. */
  readonly type: string;
}

/** A cluster resource mapping's type: host PCI or USB devices, or host directories. */
export type MappingType = "pci" | "usb" | "dir";

/** `GET /cluster/mapping/<type>/<id>`: one property string per node entry (`node=pve1,…`). */
export interface ResourceMapping {
  readonly map: readonly string[];
  readonly description?: string | undefined;
}

export interface HostResourceCalls {
  /**
   * GET /nodes/{node}/network?type=any_bridge: the bridges (and, where the release has SDN,
   * the vnets) on the node that the token may see. From PVE 8.0 a bridge is listed only with
   * SDN.Audit or SDN.Use on `/sdn/zones/localnetwork/<bridge>`, which using it needs anyway.
   */
  nodeBridges(node: string): Promise<readonly NodeBridge[]>;
  /**
   * GET /cluster/mapping/{type}/{id} (PVE 8.0+; `dir` 8.4+): a resource mapping and its node
   * entries. Needs Mapping.Use, Mapping.Audit or Mapping.Modify on `/mapping/<type>/<id>`;
   * NOT_FOUND when there is no such mapping.
   */
  resourceMapping(type: MappingType, id: string): Promise<ResourceMapping>;
}
