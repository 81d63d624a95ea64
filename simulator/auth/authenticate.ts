import type { IncomingMessage } from "node:http";
import type { SimContext } from "../context.js";
import type { AuthResult } from "./tokens.js";

/** The cookie a login ticket travels in, and the header that carries its CSRF token. */
const TICKET_COOKIE = "PVEAuthCookie";
const CSRF_HEADER = "csrfpreventiontoken";

/**
 * pve-http-server's auth_handler: an `Authorization: PVEAPIToken=…` header wins; otherwise the
 * `PVEAuthCookie` ticket, and for anything but GET its `CSRFPreventionToken` header (uploads and
 * API tokens are exempt). `POST /access/ticket` needs no authentication: it is the login.
 */
export function authenticate(
  sim: SimContext,
  req: IncomingMessage,
  method: string,
  path: string,
): AuthResult {
  if (method === "POST" && path === "/access/ticket") return { ok: true, tokenId: "" };
  const header = req.headers.authorization;
  if (header !== undefined && /^PVEAPIToken[= ]/.test(header.trim())) {
    return sim.tokens.verify(header);
  }
  const ticket = cookie(req.headers.cookie, TICKET_COOKIE);
  if (ticket === undefined) return sim.tokens.verify(header);
  const userid = sim.tickets.verify(ticket);
  if (userid === undefined) return { ok: false, reason: "permission denied - invalid PVE ticket" };
  const upload = method === "POST" && /^\/nodes\/[^/]+\/storage\/[^/]+\/upload$/.test(path);
  if (method !== "GET" && !upload) {
    const csrf = req.headers[CSRF_HEADER];
    if (!sim.tickets.verifyCsrf(userid, Array.isArray(csrf) ? csrf[0] : csrf)) {
      return { ok: false, reason: "Permission denied - invalid csrf token" };
    }
  }
  return { ok: true, tokenId: userid };
}

function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}
