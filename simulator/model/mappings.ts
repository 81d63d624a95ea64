/**
 * PVE's cluster resource mappings (`/etc/pve/mapping/{pci,usb,dir}.cfg`, pve-guest-common
 * `PVE/Mapping/{PCI,USB,Dir}.pm`): a logical id (`gpu0`) that names, per node, the host device or
 * directory a VM gets. A VM config says `hostpci0: mapping=gpu0` and each node resolves it to its
 * own entry (`get_node_mapping`), so the VM's config does not change when it moves.
 */
import { parseProperty, type PropertyFormat } from "../http/property-string.js";

export const MAPPING_TYPES = ["pci", "usb", "dir"] as const;
export type MappingType = (typeof MAPPING_TYPES)[number];

/** One mapping as `GET /cluster/mapping/<type>/<id>` shows it. */
export interface Mapping {
  readonly description?: string;
  /** PCI only: the device offers mediated devices (`mdev` in `$defaultData`). */
  readonly mdev?: number;
  /** One property string per node entry (`node=pve1,path=0000:01:00.0,id=10de:2204`). */
  readonly map: readonly string[];
}

const PCI_ID = /^[a-f0-9]{4,}:[a-f0-9]{2}:[a-f0-9]{2}(?:\.[a-f0-9])?$/;
const VENDOR_DEVICE = /^[0-9A-Fa-f]{4}:[0-9A-Fa-f]{4}$/;

/** Each type's `$map_fmt`: the keys of one node's entry. */
export const MAP_FORMATS: Readonly<Record<MappingType, PropertyFormat>> = {
  // PVE/Mapping/PCI.pm: `path` may list several devices, `;`-separated (the first free is used).
  pci: {
    node: { type: "string" },
    path: {
      type: "string",
      verify: (v) =>
        v.split(";").every((p) => PCI_ID.test(p))
          ? undefined
          : "value does not match the regex pattern",
    },
    id: { type: "string", pattern: VENDOR_DEVICE },
    "subsystem-id": { type: "string", optional: true, pattern: VENDOR_DEVICE },
    iommugroup: { type: "integer", optional: true },
    description: { type: "string", optional: true },
  },
  // PVE/Mapping/USB.pm: a vendor:device id, optionally pinned to a bus-port path.
  usb: {
    node: { type: "string" },
    id: { type: "string", pattern: VENDOR_DEVICE },
    path: { type: "string", optional: true, pattern: /^\d+-\d+(?:\.\d+)*$/ },
    description: { type: "string", optional: true },
  },
  // PVE/Mapping/Dir.pm (`pve_verify_path`): an absolute directory on the node.
  dir: {
    node: { type: "string" },
    path: { type: "string", pattern: /^\/[^;,=()]+$/ },
  },
};

/** The mappings of the cluster, by type and id. */
export class MappingTable {
  private readonly byType = new Map<MappingType, Map<string, Mapping>>(
    MAPPING_TYPES.map((type) => [type, new Map()]),
  );

  of(type: MappingType): Map<string, Mapping> {
    return this.byType.get(type) ?? new Map();
  }

  get(type: MappingType, id: string): Mapping | undefined {
    return this.of(type).get(id);
  }

  set(type: MappingType, id: string, mapping: Mapping): void {
    this.of(type).set(id, mapping);
  }

  /**
   * `get_node_mapping`: the entries of `id` for `node`, parsed; undefined when the mapping does
   * not exist, empty when it has no entry for the node.
   */
  entriesOn(type: MappingType, id: string, node: string): Record<string, string>[] | undefined {
    const mapping = this.get(type, id);
    if (mapping === undefined) return undefined;
    return mapping.map
      .map((entry) => parseProperty(MAP_FORMATS[type], entry))
      .filter((entry): entry is Record<string, string> => typeof entry !== "string")
      .filter((entry) => entry["node"] === node);
  }
}
