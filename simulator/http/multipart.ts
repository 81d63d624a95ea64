import type { IncomingMessage } from "node:http";
import { PveError } from "./pve-error.js";

export interface UploadedFile {
  readonly field: string;
  readonly filename: string;
  readonly size: number;
  /** The bytes, or undefined when the file was larger than the retain cap. */
  readonly data: Buffer | undefined;
}

export interface MultipartResult {
  readonly fields: Record<string, string>;
  readonly file: UploadedFile | undefined;
}

const MAX_FIELD_BYTES = 64 * 1024;

export function boundaryOf(contentType: string | undefined): string | undefined {
  const match = /^multipart\/form-data;.*\bboundary=(?:"([^"]+)"|([^;\s]+))/i.exec(
    contentType ?? "",
  );
  return match?.[1] ?? match?.[2];
}

function headerParam(headers: string, name: string): string | undefined {
  return new RegExp(`\\b${name}="([^"]*)"`, "i").exec(headers)?.[1];
}

/**
 * A streaming multipart/form-data reader: the body is never held in memory as a whole; a file
 * part keeps at most `retainBytes` (beyond that only its size is counted).
 */
export async function readMultipart(
  req: IncomingMessage,
  boundary: string,
  retainBytes: number,
): Promise<MultipartResult> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const fields: Record<string, string> = {};
  let file: UploadedFile | undefined;
  // Prefix CRLF so the first boundary looks like every other one.
  let pending: Buffer = Buffer.from("\r\n");
  type State = "preamble" | "headers" | "body" | "done";
  let state = "preamble" as State;
  let part:
    | {
        name: string;
        filename: string | undefined;
        chunks: Buffer[];
        size: number;
        retained: number;
      }
    | undefined;

  const emit = (data: Buffer): void => {
    if (part === undefined || data.length === 0) return;
    part.size += data.length;
    const limit = part.filename === undefined ? MAX_FIELD_BYTES : retainBytes;
    if (part.retained + data.length <= limit) {
      part.chunks.push(data);
      part.retained += data.length;
    } else {
      part.retained = Number.POSITIVE_INFINITY;
      part.chunks = [];
    }
  };
  const finishPart = (): void => {
    if (part === undefined) return;
    const data = Number.isFinite(part.retained) ? Buffer.concat(part.chunks) : undefined;
    if (part.filename === undefined) fields[part.name] = data?.toString("utf8") ?? "";
    else file = { field: part.name, filename: part.filename, size: part.size, data };
    part = undefined;
  };

  const step = (): boolean => {
    if (state === "preamble" || state === "body") {
      const at = pending.indexOf(delimiter);
      if (at < 0) {
        const keep = Math.max(0, pending.length - delimiter.length - 2);
        if (state === "body") emit(pending.subarray(0, keep));
        pending = pending.subarray(keep);
        return false;
      }
      if (pending.length < at + delimiter.length + 2) return false;
      if (state === "body") emit(pending.subarray(0, at));
      finishPart();
      const tail = pending.subarray(at + delimiter.length, at + delimiter.length + 2).toString();
      pending = pending.subarray(at + delimiter.length + 2);
      state = tail === "--" ? "done" : "headers";
      return true;
    }
    if (state === "headers") {
      const end = pending.indexOf("\r\n\r\n");
      if (end < 0) return false;
      const headers = pending.subarray(0, end).toString("utf8");
      pending = pending.subarray(end + 4);
      part = {
        name: headerParam(headers, "name") ?? "",
        filename: headerParam(headers, "filename"),
        chunks: [],
        size: 0,
        retained: 0,
      };
      state = "body";
      return true;
    }
    return false;
  };

  for await (const chunk of req) {
    if (state === "done") continue;
    pending = pending.length === 0 ? (chunk as Buffer) : Buffer.concat([pending, chunk as Buffer]);
    while (step());
  }
  if (state !== "done") throw new PveError(400, "incomplete multipart/form-data body");
  return { fields, file };
}
