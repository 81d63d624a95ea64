import type { SimContext } from "../context.js";
import { permError, type Route } from "../http/index.js";

/** Paths PVE always evaluates in get_effective_permissions, besides the token's ACL paths. */
const BASE_PATHS = [
  "/",
  "/access",
  "/access/groups",
  "/nodes",
  "/pool",
  "/sdn",
  "/storage",
  "/vms",
];

export const accessRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/access/permissions",
    params: {
      path: { type: "string", optional: true },
      userid: { type: "string", optional: true },
    },
    handler: ({ sim, tokenId, params }) => {
      const userid = params["userid"];
      if (
        userid !== undefined &&
        userid !== tokenId &&
        !sim.tokens.has(tokenId, "/access", "Sys.Audit")
      ) {
        throw permError("/access, Sys.Audit");
      }
      const subject = userid === undefined ? tokenId : String(userid);
      const paths =
        params["path"] === undefined
          ? [...new Set([...BASE_PATHS, ...sim.tokens.aclPaths(subject)])]
          : [String(params["path"])];
      const out: Record<string, Record<string, number>> = {};
      for (const path of paths) {
        const privs = sim.tokens.privileges(subject, path);
        if (privs.size === 0) continue;
        out[path] = Object.fromEntries(
          [...privs]
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([p, propagate]) => [p, propagate ? 1 : 0]),
        );
      }
      return out;
    },
  },
];
