import type { IncomingMessage } from "node:http";
import { PveError, ServerError } from "./pve-error.js";
import type { RawParams } from "./params.js";

/** Bodies other than uploads are small form or JSON documents. */
const MAX_BODY_BYTES = 1024 * 1024;

export function hasBody(req: IncomingMessage): boolean {
  const length = Number(req.headers["content-length"] ?? 0);
  return length > 0 || req.headers["transfer-encoding"] !== undefined;
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new PveError(413, "request entity too large");
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/**
 * How an array parameter (`map` of a resource mapping) reaches the handler: its items joined by
 * this separator, which no property string contains. The client sends an array as the key
 * repeated (form) or as a JSON array of strings.
 */
export const LIST_SEPARATOR = "\u0000";

/** The items of an array parameter. */
export function listParam(value: string | number | undefined): string[] {
  return value === undefined
    ? []
    : String(value)
        .split(LIST_SEPARATOR)
        .filter((v) => v !== "");
}

/** Form-encoded or JSON parameters, as pve-http-server's extract_params reads them. */
export function parseBodyParams(req: IncomingMessage, body: Buffer): RawParams {
  if (body.length === 0) return {};
  const type = String(req.headers["content-type"] ?? "");
  if (type.startsWith("application/json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch {
      // decode_json dies in extract_params, outside the API handler.
      throw new ServerError("malformed JSON string");
    }
    const out: RawParams = {};
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      for (const [key, value] of Object.entries(parsed)) {
        if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
          out[key] = value;
        } else if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
          out[key] = value.join(LIST_SEPARATOR);
        }
      }
    }
    return out;
  }
  const out: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(body.toString("utf8"))) {
    out[key] = out[key] === undefined ? value : `${out[key]}${LIST_SEPARATOR}${value}`;
  }
  return out;
}
