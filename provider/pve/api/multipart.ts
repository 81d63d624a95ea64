import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";

/**
 * A streamed `multipart/form-data` body for PVE's upload endpoint. PVE's parser is strict
 * (pve-http-server's multipart reader): a `Content-Length` is required, the form fields (`content`, then
 * optionally the checksum pair) come before the file, and the file part must be named
 * `filename`. The file bytes are streamed in chunks rather than copied into one buffer.
 */
export interface MultipartBody {
  readonly body: Readable;
  readonly contentType: string;
  readonly contentLength: number;
}

const CHUNK = 64 * 1024;
/** Read-only in use: the source of every file's zero tail. */
const ZEROS = new Uint8Array(CHUNK);

/** Keeps a file name inside its quoted header value. */
function quoteName(name: string): string {
  return name.replace(/["\r\n\\]/g, "_");
}

export function multipartUpload(
  fields: readonly (readonly [string, string])[],
  file: {
    readonly filename: string;
    readonly bytes: Uint8Array;
    readonly zeroTail?: number | undefined;
  },
): MultipartBody {
  const boundary = `----pulumi-proxmox-${randomBytes(12).toString("hex")}`;
  let head = "";
  for (const [name, value] of fields) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  }
  head +=
    `--${boundary}\r\nContent-Disposition: form-data; name="filename"; ` +
    `filename="${quoteName(file.filename)}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const headBytes = Buffer.from(head, "utf8");
  const tailBytes = Buffer.from(`\r\n--${boundary}--\r\n`, "utf8");
  const { bytes } = file;
  const zeroTail = file.zeroTail ?? 0;
  function* chunks(): Generator<Uint8Array> {
    yield headBytes;
    for (let offset = 0; offset < bytes.length; offset += CHUNK) {
      yield bytes.subarray(offset, Math.min(offset + CHUNK, bytes.length));
    }
    for (let left = zeroTail; left > 0; left -= CHUNK)
      yield ZEROS.subarray(0, Math.min(CHUNK, left));
    yield tailBytes;
  }
  return {
    body: Readable.from(chunks(), { objectMode: false }),
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: headBytes.length + bytes.length + zeroTail + tailBytes.length,
  };
}
