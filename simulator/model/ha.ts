/**
 * The HA stack's state, as pve-ha-manager keeps it: the resources config
 * (`/etc/pve/ha/resources.cfg`, what the user requested) and the CRM's service status (what the
 * manager has acted on so far). Only VMs (`vm:<vmid>`) are modelled.
 */

/** Requested states pve-ha-manager accepts (`enabled`/`disabled` are the old names). */
export const HA_STATES = ["started", "stopped", "enabled", "disabled", "ignored"] as const;
export type HaRequestedState = (typeof HA_STATES)[number];

export interface HaResource {
  readonly sid: string;
  readonly vmid: number;
  /** The requested state; PVE treats an absent state as `started`. */
  state: HaRequestedState;
  comment?: string;
  group?: string;
  max_restart?: number;
  max_relocate?: number;
  /** The CRM's service state (`started`, `request_stop`, `stopped`…); absent until it acted. */
  crmState?: string;
}

/** An HA group (`/etc/pve/ha/groups.cfg`, PVE 7/8): the nodes a resource may run on. */
export interface HaGroup {
  readonly group: string;
  /** `node[:priority]` list as the user wrote it, e.g. `pve1:2,pve2`. */
  nodes: string;
  restricted: number;
  nofailback: number;
  comment?: string;
}

/** An HA rule (`/etc/pve/ha/rules.cfg`, PVE 9), which replaced groups. */
export interface HaRule {
  readonly rule: string;
  readonly type: "node-affinity" | "resource-affinity";
  resources: string;
  nodes?: string;
  strict?: number;
  affinity?: "positive" | "negative";
  comment?: string;
  disable?: number;
  readonly order: number;
}

export class HaTable {
  private readonly resources = new Map<number, HaResource>();
  readonly groups = new Map<string, HaGroup>();
  readonly rules = new Map<string, HaRule>();

  /** PVE's `service_is_configured`: in the config, whatever its state. */
  configured(vmid: number): HaResource | undefined {
    return this.resources.get(vmid);
  }

  /** PVE's `vm_is_ha_managed`: configured and not `ignored` (ignored ones act as unmanaged). */
  managed(vmid: number): HaResource | undefined {
    const resource = this.resources.get(vmid);
    return resource?.state === "ignored" ? undefined : resource;
  }

  add(resource: HaResource): void {
    this.resources.set(resource.vmid, resource);
  }

  remove(vmid: number): boolean {
    return this.resources.delete(vmid);
  }

  list(): HaResource[] {
    return [...this.resources.values()].sort((a, b) => a.vmid - b.vmid);
  }
}

/** `vm:100` or a bare `100` (pve-ha-resource-or-vm-id) → 100; undefined for anything else. */
export function vmidOfSid(sid: string): number | undefined {
  const match = /^(?:vm:)?(\d+)$/.exec(sid);
  return match === null ? undefined : Number(match[1]);
}
