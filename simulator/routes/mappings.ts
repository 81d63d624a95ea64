/**
 * Resource mappings, as pve-manager's `PVE/API2/Cluster/Mapping/{PCI,USB,Dir}.pm` serve them: a
 * list filtered to the ids the caller may see, one mapping, and create/update/delete under the
 * mapping file's lock. Releases before 8.0 have no mappings, 8.0 to 8.3 no `dir` ones: there the
 * route answers 501 like an unknown one.
 */
import { requireAnyPriv, requirePrivs } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { listParam } from "../http/body.js";
import { dieError, PveError, splitList, type Params, type Route } from "../http/index.js";
import type { ParamSchema, ParamSpec } from "../http/params.js";
import { checkPropertyString } from "../http/property-string.js";
import { MAP_FORMATS, MAPPING_TYPES, type Mapping, type MappingType } from "../model/mappings.js";
import { lockedChange } from "./locked-change.js";

const DIGEST = "0000000000000000000000000000000000000000";
/** pve-configid. */
const ID: ParamSpec = { type: "string", pattern: /^[a-z][a-z0-9_-]+$/i };
const SEE = ["Mapping.Modify", "Mapping.Use", "Mapping.Audit"];

/** The route only where the release has this mapping type; elsewhere PVE's 501. */
function on(type: MappingType, route: Route<SimContext>): Route<SimContext> {
  return {
    ...route,
    handler: (ctx) => {
      if (!ctx.sim.options.profile.mappingTypes.includes(type)) {
        const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
          String(ctx.params[name]),
        );
        throw new PveError(501, `Method '${route.method} ${path}' not implemented`);
      }
      return route.handler(ctx);
    },
  };
}

/** `map`: each entry a property string of the type's `$map_fmt`. */
function mapSpec(type: MappingType, optional: boolean): ParamSpec {
  return {
    type: "string",
    optional,
    verify: (value) => {
      const problems = listParam(value)
        .map((entry) => checkPropertyString(MAP_FORMATS[type], "map", entry))
        .filter((problem) => problem !== undefined);
      return problems.length === 0 ? undefined : `invalid format - ${problems.join("\n")}`;
    },
  };
}

function options(type: MappingType, create: boolean): ParamSchema {
  return {
    description: { type: "string", optional: true, maxLength: 4096 },
    map: mapSpec(type, !create),
    ...(type === "pci" ? { mdev: { type: "boolean", optional: true } } : {}),
  };
}

function fromParams(params: Params, base: Mapping = { map: [] }): Mapping {
  const description = params["description"] ?? base.description;
  const mdev = params["mdev"] ?? base.mdev;
  return {
    ...(description === undefined ? {} : { description: String(description) }),
    ...(mdev === undefined ? {} : { mdev: Number(mdev) }),
    map: params["map"] === undefined ? base.map : listParam(params["map"]),
  };
}

function routesOf(type: MappingType): Route<SimContext>[] {
  const base = `/cluster/mapping/${type}`;
  const path = (id: string) => `/mapping/${type}/${id}`;
  const modify = (sim: SimContext, input: { tokenId: string; raw: Record<string, unknown> }) =>
    requirePrivs(sim, input.tokenId, `/mapping/${type}`, ["Mapping.Modify"]);
  return [
    on(type, {
      method: "GET",
      path: base,
      params: { "check-node": { type: "string", optional: true } },
      handler: ({ sim, tokenId }) =>
        [...sim.cluster.mappings.of(type)]
          .filter(([id]) => SEE.some((p) => sim.tokens.has(tokenId, path(id), p)))
          .map(([id, mapping]) => ({ id, digest: DIGEST, ...mapping })),
    }),
    on(type, {
      method: "GET",
      path: `${base}/{id}`,
      params: { id: ID },
      permission: (sim, { tokenId, raw }) =>
        requireAnyPriv(sim, tokenId, path(String(raw["id"])), SEE),
      handler: ({ sim, params }) => {
        const mapping = sim.cluster.mappings.get(type, String(params["id"]));
        if (mapping === undefined) throw dieError(`mapping '${String(params["id"])}' not found`);
        return { ...mapping, digest: DIGEST };
      },
    }),
    on(type, {
      method: "POST",
      path: base,
      params: { id: ID, ...options(type, true) },
      permission: modify,
      handler: ({ sim, params }) =>
        lockedChange("create hardware mapping failed", () => {
          const id = String(params["id"]);
          if (sim.cluster.mappings.get(type, id) !== undefined)
            throw new Error(`${type} ID '${id}' already defined`);
          sim.cluster.mappings.set(type, id, fromParams(params));
          sim.changed();
        }),
    }),
    on(type, {
      method: "PUT",
      path: `${base}/{id}`,
      params: {
        id: ID,
        ...options(type, false),
        delete: { type: "string", optional: true },
        digest: { type: "string", optional: true },
      },
      permission: (sim, { tokenId, raw }) =>
        requirePrivs(sim, tokenId, path(String(raw["id"])), ["Mapping.Modify"]),
      handler: ({ sim, params }) =>
        lockedChange("update hardware mapping failed", () => {
          const id = String(params["id"]);
          const now = sim.cluster.mappings.get(type, id);
          if (now === undefined) throw new Error(`${type} ID '${id}' does not exist`);
          const drop = new Set(splitList(String(params["delete"] ?? "")));
          const next = Object.fromEntries(
            Object.entries(fromParams(params, now)).filter(([key]) => !drop.has(key)),
          ) as unknown as Mapping;
          sim.cluster.mappings.set(type, id, next);
          sim.changed();
        }),
    }),
    on(type, {
      method: "DELETE",
      path: `${base}/{id}`,
      params: { id: ID },
      permission: modify,
      handler: ({ sim, params }) =>
        lockedChange(`delete ${type} mapping failed`, () => {
          sim.cluster.mappings.of(type).delete(String(params["id"]));
          sim.changed();
        }),
    }),
  ];
}

export const mappingRoutes: Route<SimContext>[] = MAPPING_TYPES.flatMap(routesOf);
