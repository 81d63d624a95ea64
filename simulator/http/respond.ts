import type { ServerResponse } from "node:http";
import { PveError, ServerError } from "./pve-error.js";
import { Reply } from "./router.js";

const HEADERS = {
  "Content-Type": "application/json;charset=UTF-8",
  "Cache-Control": "max-age=0",
  Pragma: "no-cache",
  Server: "pve-api-daemon/3.0",
};

/** PVE sends the first line of the message as the reason phrase. */
function reasonPhrase(message: string): string {
  return (message.split("\n")[0] ?? "").replace(/[^\x20-\x7e]/g, "?");
}

export function sendData(res: ServerResponse, result: unknown): number {
  const body =
    result instanceof Reply
      ? JSON.stringify({ ...result.extra, data: result.data ?? null })
      : JSON.stringify({ data: result ?? null });
  res.writeHead(200, "OK", { ...HEADERS, "Content-Length": Buffer.byteLength(body) });
  res.end(body);
  return 200;
}

export function sendError(res: ServerResponse, error: PveError, messageInBody: boolean): number {
  const payload: Record<string, unknown> = { data: null };
  if (error.errors !== undefined) payload["errors"] = error.errors;
  if (messageInBody) payload["message"] = `${error.message}\n`;
  const body = JSON.stringify(payload);
  res.writeHead(error.status, reasonPhrase(error.message), {
    ...HEADERS,
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(body);
  return error.status;
}

/**
 * A {@link ServerError}: no JSON envelope; the message as the body when `messageInBody` (as
 * pve-http-server 5.2.0 and later fill an empty error body), else nothing.
 */
export function sendServerError(
  res: ServerResponse,
  error: ServerError,
  genericStatus: number,
  messageInBody: boolean,
): number {
  const status = error.status ?? genericStatus;
  const body = messageInBody ? `${error.message}\n` : "";
  res.writeHead(status, reasonPhrase(error.message), {
    Server: HEADERS.Server,
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(body);
  return status;
}

/** 401 and the 595/596 proxy errors carry no body at all. */
export function sendEmpty(res: ServerResponse, status: number, reason: string): number {
  res.writeHead(status, reasonPhrase(reason), { Server: HEADERS.Server, "Content-Length": 0 });
  res.end();
  return status;
}

export function asPveError(err: unknown): PveError {
  if (err instanceof PveError) return err;
  return new PveError(500, err instanceof Error ? err.message : String(err));
}
