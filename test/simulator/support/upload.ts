import { request } from "undici";
import { Agent } from "undici";
import type { Simulator } from "../../../simulator/index.js";

/** Sends a multipart ISO upload the way PVE's web UI does (fields first, file part last). */
export async function uploadFile(
  sim: Simulator,
  node: string,
  storage: string,
  filename: string,
  bytes: Buffer,
  fields: Record<string, string> = { content: "iso" },
  fileField = "filename",
): Promise<{ status: number; body: Record<string, unknown> | null; statusText: string }> {
  const boundary = "----simtest7d1f";
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      ),
    );
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  const body = Buffer.concat(parts);
  const agent = new Agent({ connect: { ca: sim.caCertPem } });
  const res = await request(`${sim.url}/api2/json/nodes/${node}/storage/${storage}/upload`, {
    method: "POST",
    dispatcher: agent,
    headers: {
      authorization: `PVEAPIToken=${sim.apiToken}`,
      "content-type": `multipart/form-data; boundary=${boundary}`,
      "content-length": String(body.length),
    },
    body,
  });
  const text = await res.body.text();
  await agent.close();
  return {
    status: res.statusCode,
    statusText: (res as unknown as { statusText?: string }).statusText ?? "",
    body: text === "" ? null : (JSON.parse(text) as Record<string, unknown>),
  };
}
