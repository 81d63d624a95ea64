import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Simulator, SimulatorOptions } from "../../../simulator/index.js";
import { data, startWithClient, type TestClient } from "./client.js";

/**
 * A loopback HTTP server with fixed files, for download-url tests; counts the GETs it answers.
 * `/moved/<path>` redirects to `<path>`; `/broken.qcow2` drops the connection mid-body. A query
 * string (a pre-signed URL's) is recorded in `requests` and ignored when finding the file.
 */
export interface ImageServer {
  readonly url: string;
  readonly requests: string[];
  close(): Promise<void>;
}

export async function serveImages(files: Record<string, Buffer>): Promise<ImageServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    requests.push(path);
    const moved = /^\/moved(\/.*)$/.exec(path)?.[1];
    if (moved !== undefined) {
      res.writeHead(302, { location: moved }).end();
      return;
    }
    if (path === "/broken.qcow2") {
      // Promises a megabyte, sends a kilobyte, then drops the connection.
      res.writeHead(200, { "content-length": String(1024 * 1024) });
      res.write(Buffer.alloc(1024, 1), () => res.destroy());
      return;
    }
    const body = files[path.split("?")[0] ?? path];
    if (body === undefined) {
      res.writeHead(404, "Not Found").end();
      return;
    }
    res
      .writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": String(body.length),
      })
      .end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Storages where `local` also takes `import` content, as an admin enables it for templates. */
export const IMPORT_STORAGES: NonNullable<SimulatorOptions["storages"]> = [
  { storage: "local", type: "dir", content: ["iso", "vztmpl", "backup", "import"], shared: false },
  { storage: "local-lvm", type: "lvmthin", content: ["images", "rootdir"], shared: false },
  { storage: "shared", type: "nfs", content: ["images", "iso"], shared: true },
];

/** Thick LVM: no base images, so no templates' linked clones. */
export const THICK_LVM = { storage: "thick", type: "lvm", content: ["images"], shared: false };

/** A simulator whose `local` storage takes `import` content, a client, and an image server. */
export interface ImageSim {
  readonly sim: Simulator;
  readonly api: TestClient;
  readonly images: ImageServer;
}

export async function startWithImages(
  files: Record<string, Buffer>,
  options: SimulatorOptions = {},
): Promise<ImageSim> {
  const { sim, api } = await startWithClient({ storages: IMPORT_STORAGES, ...options });
  return { sim, api, images: await serveImages(files) };
}

export async function stopImageSim({ sim, api, images }: ImageSim): Promise<void> {
  await api.close();
  await sim.close();
  await images.close();
}

/** The task's log lines, without line numbers. */
export async function taskLog(api: TestClient, node: string, upid: string): Promise<string[]> {
  const lines = data(
    await api.get(`/nodes/${node}/tasks/${encodeURIComponent(upid)}/log?limit=1000`),
  ) as { t: string }[];
  return lines.map((l) => l.t);
}

/** Starts a download-url task and waits for it; returns its final status and log. */
export async function downloadAndWait(
  api: TestClient,
  params: Record<string, string | number>,
  node = "pve1",
  storage = "local",
): Promise<{ exitstatus: unknown; log: string[] }> {
  const res = await api.call("POST", `/nodes/${node}/storage/${storage}/download-url`, params);
  const upid = String(data(res));
  if (!upid.startsWith("UPID:")) throw new Error(`download-url refused: ${res.text}`);
  const status = await api.waitTask(node, upid);
  return { exitstatus: status["exitstatus"], log: await taskLog(api, node, upid) };
}

/** Downloads `/<file>` from the image server, creates VM `vmid` from it and waits for the task. */
export async function createFromImage(
  api: TestClient,
  imagesUrl: string,
  vmid: number,
  file = "debian.qcow2",
  disk = "local-lvm:0",
): Promise<void> {
  const source = `local:import/${file}`;
  const listed = data(await api.get("/nodes/pve1/storage/local/content?content=import")) as {
    volid: string;
  }[];
  if (!listed.some((v) => v.volid === source)) {
    const done = await downloadAndWait(api, {
      url: `${imagesUrl}/${file}`,
      content: "import",
      filename: file,
    });
    if (done.exitstatus !== "OK") throw new Error(`download failed: ${String(done.exitstatus)}`);
  }
  const res = await api.call("POST", "/nodes/pve1/qemu", {
    vmid,
    name: `vm${vmid}`,
    scsi0: `${disk},import-from=${source}`,
    net0: "virtio,bridge=vmbr0",
  });
  const status = await api.waitTask("pve1", String(data(res)));
  if (status["exitstatus"] !== "OK") throw new Error(`create failed: ${res.text}`);
}

/** Converts VM `vmid` on pve1 to a template and waits for the task; returns its final status. */
export async function convertToTemplate(
  api: TestClient,
  vmid: number,
): Promise<Record<string, unknown>> {
  const res = await api.call("POST", `/nodes/pve1/qemu/${vmid}/template`);
  const upid = String(data(res));
  if (!upid.startsWith("UPID:")) throw new Error(`template refused: ${res.text}`);
  return api.waitTask("pve1", upid);
}
