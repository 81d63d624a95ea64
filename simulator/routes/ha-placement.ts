/**
 * Where HA resources may run: groups on PVE 7/8 (pve-ha-manager `src/PVE/API2/HA/Groups.pm`)
 * and rules on PVE 9 (`src/PVE/API2/HA/Rules.pm`), which replaced them. The `haPlacement` option
 * says which API the cluster has; the other answers 501 like an unknown route. Reads need
 * Sys.Audit on `/`, changes Sys.Console; changes run under the HA domain lock, whose wrapper
 * prefixes the error (`create ha group failed: …`).
 */
import type { SimContext } from "../context.js";
import { dieError, PveError, splitList, type Params, type Route } from "../http/index.js";
import type { ParamSchema } from "../http/params.js";
import type { HaGroup, HaRule } from "../model/ha.js";
import type { HaPlacementApi } from "../options.js";
import { audit, console } from "./ha.js";
import { lockedChange } from "./locked-change.js";

const DIGEST = "0000000000000000000000000000000000000000";
const ID = /^[A-Za-z][A-Za-z0-9\-_]+$/;
/** pve-ha-group-node-list: `node[:priority]`, comma separated. */
const NODE_LIST = /^[a-zA-Z0-9-]+(?::\d+)?(?:,[a-zA-Z0-9-]+(?::\d+)?)*$/;

/** The route only where the cluster has this placement API; elsewhere PVE's 501. */
function on(api: HaPlacementApi, route: Route<SimContext>): Route<SimContext> {
  return {
    ...route,
    handler: (ctx) => {
      if (ctx.sim.options.haPlacement !== api) {
        const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
          String(ctx.params[name]),
        );
        throw new PveError(501, `Method '${route.method} ${path}' not implemented`);
      }
      return route.handler(ctx);
    },
  };
}

function flag(value: unknown): number | undefined {
  return value === undefined ? undefined : Number(value);
}

function groupView(group: HaGroup): Record<string, unknown> {
  return { ...group, type: "group", digest: DIGEST };
}

const GROUP_OPTIONS: ParamSchema = {
  nodes: { type: "string", pattern: NODE_LIST },
  restricted: { type: "boolean", optional: true },
  nofailback: { type: "boolean", optional: true },
  comment: { type: "string", optional: true, maxLength: 4096 },
  type: { type: "string", optional: true, enum: ["group"] },
};

/** set_rule_defaults: `disable`/`strict` read as 0 when unset. */
function ruleView(rule: HaRule): Record<string, unknown> {
  const defaults = rule.type === "node-affinity" ? { strict: 0 } : {};
  return { disable: 0, ...defaults, ...rule, digest: DIGEST };
}

/** The checks create/update run on a rule's resources and nodes. */
function assertRuleTargets(sim: SimContext, rule: HaRule): void {
  const unmanaged = splitList(rule.resources).filter((sid) => {
    const vmid = /^(?:vm:)?(\d+)$/.exec(sid)?.[1];
    return vmid === undefined || sim.cluster.ha.configured(Number(vmid)) === undefined;
  });
  if (unmanaged.length > 0)
    throw new Error(`cannot use unmanaged resource(s) ${unmanaged.join(", ")}.`);
  const missing = splitList(rule.nodes ?? "")
    .map((entry) => entry.split(":")[0] ?? "")
    .filter((node) => !sim.cluster.nodes.has(node));
  if (missing.length > 0) throw new Error(`cannot use non-existant node(s) ${missing.join(", ")}.`);
}

function applyRuleOptions(rule: HaRule, params: Params): void {
  for (const key of ["resources", "nodes", "comment"] as const) {
    if (params[key] !== undefined) rule[key] = String(params[key]);
  }
  for (const key of ["strict", "disable"] as const) {
    if (params[key] !== undefined) rule[key] = Number(params[key]);
  }
  if (params["affinity"] !== undefined)
    rule.affinity = params["affinity"] === "negative" ? "negative" : "positive";
}

const RULE_OPTIONS: ParamSchema = {
  resources: { type: "string", optional: true },
  nodes: { type: "string", optional: true, pattern: NODE_LIST },
  strict: { type: "boolean", optional: true },
  affinity: { type: "string", optional: true, enum: ["positive", "negative"] },
  comment: { type: "string", optional: true, maxLength: 4096 },
  disable: { type: "boolean", optional: true },
};

export const haPlacementRoutes: Route<SimContext>[] = [
  on("groups", {
    method: "GET",
    path: "/cluster/ha/groups",
    params: {},
    permission: audit,
    handler: ({ sim }) => [...sim.cluster.ha.groups.values()].map(groupView),
  }),
  on("groups", {
    method: "POST",
    path: "/cluster/ha/groups",
    params: { group: { type: "string", pattern: ID }, ...GROUP_OPTIONS },
    permission: console,
    handler: ({ sim, params }) =>
      lockedChange("create ha group failed", () => {
        const name = String(params["group"]);
        if (sim.cluster.ha.groups.has(name))
          throw new Error(`ha group ID '${name}' already defined`);
        const group: HaGroup = {
          group: name,
          nodes: String(params["nodes"]),
          restricted: flag(params["restricted"]) ?? 0,
          nofailback: flag(params["nofailback"]) ?? 0,
        };
        if (params["comment"] !== undefined) group.comment = String(params["comment"]);
        sim.cluster.ha.groups.set(name, group);
        sim.changed();
      }),
  }),
  on("groups", {
    method: "GET",
    path: "/cluster/ha/groups/{group}",
    params: { group: { type: "string", pattern: ID } },
    permission: audit,
    handler: ({ sim, params }) => {
      const group = sim.cluster.ha.groups.get(String(params["group"]));
      if (group === undefined) throw dieError(`no such ha group '${String(params["group"])}'`);
      return groupView(group);
    },
  }),
  on("groups", {
    method: "PUT",
    path: "/cluster/ha/groups/{group}",
    params: {
      group: { type: "string", pattern: ID },
      ...GROUP_OPTIONS,
      nodes: { type: "string", optional: true, pattern: NODE_LIST },
      digest: { type: "string", optional: true },
      delete: { type: "string", optional: true },
    },
    permission: console,
    handler: ({ sim, params }) =>
      lockedChange("update ha group failed", () => {
        const name = String(params["group"]);
        const group = sim.cluster.ha.groups.get(name);
        if (group === undefined) throw new Error(`no such ha group '${name}'`);
        if (params["nodes"] !== undefined) group.nodes = String(params["nodes"]);
        group.restricted = flag(params["restricted"]) ?? group.restricted;
        group.nofailback = flag(params["nofailback"]) ?? group.nofailback;
        if (params["comment"] !== undefined) group.comment = String(params["comment"]);
        for (const key of splitList(String(params["delete"] ?? ""))) {
          if (key === "nodes") throw new Error(`unable to delete required option '${key}'`);
          if (key === "comment") delete group.comment;
          else if (key === "restricted" || key === "nofailback") group[key] = 0;
          else throw new Error(`no such option '${key}'`);
        }
        sim.changed();
      }),
  }),
  on("groups", {
    method: "DELETE",
    path: "/cluster/ha/groups/{group}",
    params: { group: { type: "string", pattern: ID } },
    permission: console,
    handler: ({ sim, params }) =>
      lockedChange("delete ha group failed", () => {
        const name = String(params["group"]);
        const user = sim.cluster.ha.list().find((resource) => resource.group === name);
        if (user !== undefined) throw new Error(`ha group is used by service '${user.sid}'`);
        sim.cluster.ha.groups.delete(name);
        sim.changed();
      }),
  }),
  on("rules", {
    method: "GET",
    path: "/cluster/ha/rules",
    params: {
      type: { type: "string", optional: true, enum: ["node-affinity", "resource-affinity"] },
      resource: { type: "string", optional: true },
    },
    permission: audit,
    handler: ({ sim, params }) =>
      [...sim.cluster.ha.rules.values()]
        .sort((a, b) => a.order - b.order)
        .filter((rule) => params["type"] === undefined || rule.type === params["type"])
        .filter(
          (rule) =>
            params["resource"] === undefined ||
            splitList(rule.resources).includes(String(params["resource"])),
        )
        .map(ruleView),
  }),
  on("rules", {
    method: "POST",
    path: "/cluster/ha/rules",
    params: {
      rule: { type: "string", pattern: ID },
      type: { type: "string", enum: ["node-affinity", "resource-affinity"] },
      ...RULE_OPTIONS,
      resources: { type: "string" },
    },
    permission: console,
    handler: ({ sim, params }) =>
      lockedChange("create ha rule failed", () => {
        const id = String(params["rule"]);
        if (sim.cluster.ha.rules.has(id)) throw new Error(`HA rule '${id}' already defined`);
        const type = params["type"] === "resource-affinity" ? "resource-affinity" : "node-affinity";
        const order = Math.max(0, ...[...sim.cluster.ha.rules.values()].map((r) => r.order)) + 1;
        const rule: HaRule = { rule: id, type, resources: "", order };
        applyRuleOptions(rule, params);
        assertRuleTargets(sim, rule);
        sim.cluster.ha.rules.set(id, rule);
        sim.changed();
      }),
  }),
  on("rules", {
    method: "GET",
    path: "/cluster/ha/rules/{rule}",
    params: { rule: { type: "string", pattern: ID } },
    permission: audit,
    handler: ({ sim, params }) => {
      const rule = sim.cluster.ha.rules.get(String(params["rule"]));
      if (rule === undefined) throw dieError(`no such ha rule '${String(params["rule"])}'`);
      return ruleView(rule);
    },
  }),
  on("rules", {
    method: "DELETE",
    path: "/cluster/ha/rules/{rule}",
    params: { rule: { type: "string", pattern: ID } },
    permission: console,
    handler: ({ sim, params }) =>
      lockedChange("delete ha rule failed", () => {
        sim.cluster.ha.rules.delete(String(params["rule"]));
        sim.changed();
      }),
  }),
];
