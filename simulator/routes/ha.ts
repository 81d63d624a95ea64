/**
 * `/cluster/ha/…` from pve-ha-manager (src/PVE/API2/HA/Resources.pm, Status.pm): listing and
 * reading need Sys.Audit on `/`, every change Sys.Console on `/`. Only `vm:<vmid>` resources.
 */
import { requirePrivs } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { dieError, paramError, type Params, type Route } from "../http/index.js";
import type { ParamSchema } from "../http/params.js";
import { HA_STATES, vmidOfSid, type HaRequestedState, type HaResource } from "../model/ha.js";
import { requestHaState, scheduleCrm } from "./qemu-power.js";

export const audit = (sim: SimContext, input: { tokenId: string }): void =>
  requirePrivs(sim, input.tokenId, "/", ["Sys.Audit"]);
export const console = (sim: SimContext, input: { tokenId: string }): void =>
  requirePrivs(sim, input.tokenId, "/", ["Sys.Console"]);

const SID = { type: "string", pattern: /^(?:vm:)?\d+$/ } as const;
const OPTIONS: ParamSchema = {
  state: { type: "string", optional: true, enum: HA_STATES },
  comment: { type: "string", optional: true, maxLength: 4096 },
  group: { type: "string", optional: true },
  max_restart: { type: "integer", optional: true, min: 0, max: 10 },
  max_relocate: { type: "integer", optional: true, min: 0, max: 10 },
};

function vmidOf(params: Params): number {
  const vmid = vmidOfSid(String(params["sid"]));
  if (vmid === undefined) throw paramError({ sid: "unable to parse service id" });
  return vmid;
}

/** api_copy_config: the resource as the API shows it. */
function view(resource: HaResource): Record<string, unknown> {
  const { crmState: _crm, vmid: _vmid, ...config } = resource;
  return { ...config, type: "vm", digest: "0000000000000000000000000000000000000000" };
}

function applyOptions(resource: HaResource, params: Params): void {
  for (const key of ["comment", "group"] as const) {
    const value = params[key];
    if (value !== undefined) resource[key] = String(value);
  }
  for (const key of ["max_restart", "max_relocate"] as const) {
    const value = params[key];
    if (value !== undefined) resource[key] = Number(value);
  }
}

/** Status.pm's service row; `state` is the verbose state (get_verbose_service_state). */
function serviceRow(sim: SimContext, resource: HaResource): Record<string, unknown> {
  const node = sim.cluster.vms.get(resource.vmid)?.node ?? "---";
  const state = resource.crmState ?? "queued";
  return {
    id: `service:${resource.sid}`,
    type: "service",
    sid: resource.sid,
    node,
    ...(resource.crmState === undefined ? {} : { crm_state: resource.crmState }),
    state,
    status: `${resource.sid} (${node}, ${state})`,
    request_state: resource.state,
  };
}

export const haRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/cluster/ha/resources",
    params: { type: { type: "string", optional: true, enum: ["vm", "ct"] } },
    permission: audit,
    handler: ({ sim, params }) => (params["type"] === "ct" ? [] : sim.cluster.ha.list().map(view)),
  },
  {
    method: "POST",
    path: "/cluster/ha/resources",
    params: { sid: SID, type: { type: "string", optional: true, enum: ["vm"] }, ...OPTIONS },
    permission: console,
    handler: ({ sim, params }) => {
      const vmid = vmidOf(params);
      const sid = `vm:${vmid}`;
      if (!sim.cluster.vms.has(vmid)) throw dieError(`resource '${sid}' does not exist in cluster`);
      if (sim.cluster.ha.configured(vmid) !== undefined)
        throw dieError(`create resource failed: resource ID '${sid}' already defined`);
      const resource: HaResource = {
        sid,
        vmid,
        state: (params["state"] as HaRequestedState | undefined) ?? "started",
      };
      applyOptions(resource, params);
      sim.cluster.ha.add(resource);
      sim.changed();
      // The CRM picks the new service up in its next round and brings it to its state.
      scheduleCrm(sim, vmid);
      return null;
    },
  },
  {
    method: "GET",
    path: "/cluster/ha/resources/{sid}",
    params: { sid: SID },
    permission: audit,
    handler: ({ sim, params }) => {
      const vmid = vmidOf(params);
      const resource = sim.cluster.ha.configured(vmid);
      if (resource === undefined) throw dieError(`no such resource 'vm:${vmid}'`);
      return view(resource);
    },
  },
  {
    method: "PUT",
    path: "/cluster/ha/resources/{sid}",
    params: {
      sid: SID,
      ...OPTIONS,
      digest: { type: "string", optional: true },
      delete: { type: "string", optional: true },
    },
    permission: console,
    handler: ({ sim, params }) => {
      const vmid = vmidOf(params);
      const resource = sim.cluster.ha.configured(vmid);
      if (resource === undefined)
        throw dieError(`update resource failed: no such resource 'vm:${vmid}'`);
      applyOptions(resource, params);
      const state = params["state"] as HaRequestedState | undefined;
      if (state === "started" || state === "stopped") requestHaState(sim, vmid, state);
      else if (state !== undefined) resource.state = state;
      sim.changed();
      return null;
    },
  },
  {
    method: "DELETE",
    path: "/cluster/ha/resources/{sid}",
    params: { sid: SID, purge: { type: "boolean", optional: true } },
    permission: console,
    handler: ({ sim, params }) => {
      const vmid = vmidOf(params);
      if (sim.cluster.ha.managed(vmid) === undefined)
        throw dieError(`resource 'vm:${vmid}' is not HA managed`);
      sim.cluster.ha.remove(vmid);
      sim.changed();
      return null;
    },
  },
  {
    method: "GET",
    path: "/cluster/ha/status/current",
    params: {},
    permission: audit,
    handler: ({ sim }) => {
      const [first] = sim.cluster.nodes.keys();
      const rows: Record<string, unknown>[] = [
        { id: "quorum", type: "quorum", node: first, status: "OK", quorate: 1 },
      ];
      const now = Math.floor(Date.now() / 1000);
      const resources = sim.cluster.ha.list();
      if (resources.length > 0) {
        rows.push({
          id: "master",
          type: "master",
          node: first,
          status: `${String(first)} (active, ${new Date(now * 1000).toString()})`,
          timestamp: now,
        });
      }
      rows.push(...resources.map((resource) => serviceRow(sim, resource)));
      return rows;
    },
  },
];
