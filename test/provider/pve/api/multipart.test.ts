import { describe, expect, it } from "vitest";
import { multipartUpload } from "../../../../provider/pve/api/multipart.js";

async function bodyOf(upload: ReturnType<typeof multipartUpload>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of upload.body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

describe("multipartUpload", () => {
  it("sends the fields, then the file part named filename, with a Content-Length that matches", async () => {
    const upload = multipartUpload([["content", "iso"]], {
      filename: "seed.iso",
      bytes: Buffer.from("ISO"),
    });
    const body = await bodyOf(upload);
    const boundary = /boundary=(.+)$/.exec(upload.contentType)?.[1];
    expect(body.length).toBe(upload.contentLength);
    expect(body.toString("latin1")).toBe(
      `--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\niso\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="filename"; filename="seed.iso"\r\n` +
        `Content-Type: application/octet-stream\r\n\r\nISO\r\n--${boundary}--\r\n`,
    );
  });

  it("ends the file with its zero tail, counted in the Content-Length", async () => {
    const bytes = Buffer.from([1, 2, 3]);
    const zeroTail = 200 * 1024 + 5;
    const plain = multipartUpload([], { filename: "a.iso", bytes });
    const padded = multipartUpload([], { filename: "a.iso", bytes, zeroTail });
    const body = await bodyOf(padded);
    expect(padded.contentLength).toBe(plain.contentLength + zeroTail);
    expect(body.length).toBe(padded.contentLength);
    const file = body.indexOf(bytes);
    expect(body.subarray(file + 3, file + 3 + zeroTail).every((b) => b === 0)).toBe(true);
    expect(body.subarray(file + 3 + zeroTail).toString("latin1")).toMatch(/^\r\n--.+--\r\n$/);
  });
});
