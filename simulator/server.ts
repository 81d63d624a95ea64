import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { authenticate } from "./auth/authenticate.js";
import { TokenStore } from "./auth/tokens.js";
import type { RequestFault, SimContext } from "./context.js";
import { hasBody, parseBodyParams, readBody } from "./http/body.js";
import { validateParams, type RawParams } from "./http/params.js";
import { dieError, PveError, ServerError } from "./http/pve-error.js";
import { asPveError, sendData, sendEmpty, sendError, sendServerError } from "./http/respond.js";
import type { Router } from "./http/router.js";

/** One served API request; never holds the token secret. */
export interface RequestLogEntry {
  readonly method: string;
  /** Path below `/api2/json`, without the query string, e.g. `/cluster/resources`. */
  readonly path: string;
  /** HTTP status sent; 0 when the connection was dropped by a fault. */
  readonly status: number;
  readonly durationMs: number;
  /** When the request arrived (epoch milliseconds): lines a client's requests up with its tasks. */
  readonly receivedAt: number;
  /** `user@realm!name` from the Authorization header, if any (even when it failed). */
  readonly tokenId: string | undefined;
}

const PREFIX = "/api2/json";

/** Builds the `(req, res)` listener: faults → auth → route → permission → proxy → params → handler. */
export function createApiHandler(
  sim: SimContext,
  router: Router<SimContext>,
  log: RequestLogEntry[],
  answered: (entry: RequestLogEntry) => void,
  admin: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = performance.now();
    const receivedAt = Date.now();
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://sim");
    let path: string;
    try {
      // PVE URI-unescapes the whole path before routing.
      path = decodeURIComponent(url.pathname);
    } catch {
      path = url.pathname;
    }
    if (path.startsWith("/_sim/")) {
      admin(req, res, path).catch((err: unknown) => sendError(res, asPveError(err), true));
      return;
    }
    const apiPath = path.startsWith(`${PREFIX}/`) ? path.slice(PREFIX.length) : undefined;
    const tokenId = TokenStore.peekTokenId(req.headers.authorization);
    handle(sim, router, req, res, method, apiPath, url)
      .catch((err: unknown) => (res.headersSent ? 0 : sendFailure(sim, res, err)))
      .then((status) => {
        const entry: RequestLogEntry = {
          method,
          path: apiPath ?? path,
          status,
          durationMs: Math.round((performance.now() - started) * 1000) / 1000,
          receivedAt,
          tokenId,
        };
        log.push(entry);
        // A dropped connection never finishes: it is "answered" (with nothing) now.
        if (status === 0 || res.writableFinished) answered(entry);
        else res.once("finish", () => answered(entry));
      })
      .catch(() => undefined);
  };
}

/** An error as PVE answers it: the API handler's JSON envelope, or the HTTP server's bare one. */
function sendFailure(sim: SimContext, res: ServerResponse, err: unknown): number {
  const { errorMessageInBody, profile } = sim.options;
  if (err instanceof ServerError) {
    return sendServerError(res, err, profile.outsideHandlerErrorStatus, errorMessageInBody);
  }
  return sendError(res, asPveError(err), errorMessageInBody);
}

/**
 * Sends a TCP RST. A TLS socket cannot reset itself (its handle is the TLS layer), so the reset
 * goes to the TCP socket under it.
 */
function resetConnection(socket: Socket): void {
  const tcp = (socket as Socket & { _parent?: Socket | null })._parent ?? socket;
  try {
    tcp.resetAndDestroy();
  } catch {
    socket.destroy();
  }
  socket.destroy();
}

function takeFault(faults: RequestFault[], method: string, path: string): RequestFault | undefined {
  const index = faults.findIndex(
    (f) => (f.method === undefined || f.method === method) && f.path.test(path),
  );
  const fault = faults[index];
  if (fault === undefined) return undefined;
  fault.remaining -= 1;
  if (fault.remaining <= 0) faults.splice(index, 1);
  return fault;
}

async function handle(
  sim: SimContext,
  router: Router<SimContext>,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  path: string | undefined,
  url: URL,
): Promise<number> {
  const messageInBody = sim.options.errorMessageInBody;
  if (path === undefined) throw new ServerError("no such uri", 501);

  const fault = takeFault(sim.requestFaults, method, path);
  if (fault?.kind === "drop") {
    req.socket.destroy();
    return 0;
  }
  if (fault?.kind === "reset") {
    resetConnection(req.socket);
    return 0;
  }
  if (fault?.kind === "delay") await sleep(fault.delayMs ?? 0);
  if (fault?.kind === "fail") {
    return sendError(
      res,
      new PveError(fault.status ?? 500, fault.message ?? "simulated failure"),
      messageInBody,
    );
  }

  const auth = authenticate(sim, req, method, path);
  if (!auth.ok) {
    // PVE delays every failed authentication (~3 s) and sends no body.
    await sleep(sim.options.authFailureDelayMs);
    return sendEmpty(res, 401, auth.reason);
  }

  const matched = router.match(method, path);
  if (matched === undefined) {
    return sendError(
      res,
      new PveError(501, `Method '${method} ${path}' not implemented`),
      messageInBody,
    );
  }
  const { route, pathParams } = matched;
  const streams = route.streamsBody === true;
  if ((method === "GET" || method === "DELETE") && hasBody(req)) {
    throw new ServerError(`Unexpected content for method '${method}'`, 501);
  }
  const raw: RawParams = { ...Object.fromEntries(url.searchParams) };
  if (!streams && (method === "POST" || method === "PUT")) {
    Object.assign(raw, parseBodyParams(req, await readBody(req)));
  }
  Object.assign(raw, pathParams);

  route.permission?.(sim, { tokenId: auth.tokenId, raw });

  const node = pathParams["node"];
  if (node !== undefined) {
    const state = sim.cluster.nodes.get(node);
    if (state?.down !== undefined) return sendEmpty(res, state.down.status, state.down.reason);
    if (state === undefined && /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/.test(node)) {
      throw dieError(
        `hostname lookup '${node}' failed - failed to get address info for: ${node}: Name or service not known`,
      );
    }
  }

  const params = validateParams(raw, route.params, route.dynamicParam);
  // A node-less path (`/cluster/…`, `/access/…`) is served by the node the client talks to.
  const servedBy = node ?? sim.options.nodes[0]?.name ?? "";
  const result = await sim.workers.of(servedBy).run(async () => {
    if (sim.options.requestLatencyMs > 0) await sleep(sim.options.requestLatencyMs);
    return route.handler({ sim, tokenId: auth.tokenId, params, req });
  });
  if (fault?.kind === "lose-answer") {
    req.socket.destroy();
    return 0;
  }
  if (res.headersSent) return res.statusCode;
  return sendData(res, result);
}
