/**
 * The user, token and ACL reads that doctors and inventory tools make: pve-access-control
 * `PVE/API2/User.pm` (`index`, `token_index`) and `PVE/API2/ACL.pm` (`read_acl`).
 */
import { hasPriv } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { dieError, permError, type Route } from "../http/index.js";
import type { Acl } from "../model/types.js";

const USERID = { type: "string", pattern: /^[^\s:/!]+@[A-Za-z][A-Za-z0-9.\-_]+$/ } as const;

/** The user a caller acts as: a token's owner, or the logged-in user. */
function ownerOf(caller: string): string {
  const bang = caller.indexOf("!");
  return bang < 0 ? caller : caller.slice(0, bang);
}

function canAuditUsers(sim: SimContext, caller: string): boolean {
  return (
    hasPriv(sim, caller, "/access/groups", "Sys.Audit") ||
    hasPriv(sim, caller, "/access/groups", "User.Modify")
  );
}

function tokenRows(sim: SimContext, userid: string): Record<string, unknown>[] {
  return sim.tokens.tokensOf(userid).map((token) => ({
    tokenid: token.tokenId.slice(userid.length + 1),
    expire: 0,
    privsep: 1,
  }));
}

function roleOf(sim: SimContext, acl: Acl): string {
  if (acl.role !== undefined) return acl.role;
  return sim.options.profile.privileges.every((p) => acl.privileges.includes(p))
    ? "Administrator"
    : "custom";
}

export const accessUserRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/access/users",
    params: {
      enabled: { type: "boolean", optional: true },
      full: { type: "boolean", optional: true },
    },
    handler: ({ sim, tokenId, params }) => {
      const all = canAuditUsers(sim, tokenId);
      return sim.tokens
        .userIds()
        .filter((userid) => all || userid === ownerOf(tokenId))
        .map((userid) => ({
          userid,
          enable: 1,
          expire: 0,
          "realm-type": userid.slice(userid.indexOf("@") + 1),
          ...(params["full"] === 1 ? { tokens: tokenRows(sim, userid) } : {}),
        }));
    },
  },
  {
    method: "GET",
    path: "/access/users/{userid}/token",
    params: { userid: USERID },
    permission: (sim, { tokenId, raw }) => {
      const userid = String(raw["userid"]);
      if (userid !== ownerOf(tokenId) && !hasPriv(sim, tokenId, "/access/groups", "User.Modify"))
        throw permError();
    },
    handler: ({ sim, params }) => {
      const userid = String(params["userid"]);
      if (!sim.tokens.userIds().includes(userid)) throw dieError(`no such user ('${userid}')`);
      return tokenRows(sim, userid);
    },
  },
  {
    method: "GET",
    path: "/access/acl",
    params: {},
    handler: ({ sim, tokenId }) => {
      const rows: Record<string, unknown>[] = [];
      const subjects = sim.tokens
        .userIds()
        .flatMap((userid) => [
          { ugid: userid, type: "user" },
          ...sim.tokens.tokensOf(userid).map((t) => ({ ugid: t.tokenId, type: "token" })),
        ]);
      for (const { ugid, type } of subjects) {
        for (const acl of sim.tokens.aclsOf(ugid)) {
          // read_acl lists only the paths the caller may audit.
          if (
            !hasPriv(sim, tokenId, acl.path, "Sys.Audit") &&
            !hasPriv(sim, tokenId, acl.path, "Permissions.Modify")
          )
            continue;
          rows.push({
            path: acl.path,
            type,
            ugid,
            roleid: roleOf(sim, acl),
            propagate: acl.propagate === false ? 0 : 1,
          });
        }
      }
      return rows;
    },
  },
];
