/**
 * The simulator's cloud-image template path, timed: download-url of an image served on
 * loopback (MiB/s), the create that imports it, the template conversion and a linked clone.
 * Task durations are 0 so the figures are the simulator's own cost. Then the API requests of
 * one `CloudImageTemplate` create and delete through the provider's operations, by kind, from
 * the request log of a simulator with `pve-sim`'s task durations (what the demo meets). Run
 * after `npm run build`:
 *
 *   node bench/simulator-template.ts [--mib 256]
 */
/* eslint-disable @typescript-eslint/no-require-imports --
   The package is CommonJS, so Node's type stripping runs this file as CJS: `import` statements
   would not load, `require` does. */
const { createServer } = require("node:http") as typeof import("node:http");
const { resolve } = require("node:path") as typeof import("node:path");
const { parseArgs } = require("node:util") as typeof import("node:util");
const { Agent, request } = require("undici") as typeof import("undici");
const dist = (module: string) => resolve(__dirname, "..", "dist", module);
const { startSimulator, REALISTIC_TASK_MS } = require(
  dist("simulator/index.js"),
) as typeof import("../simulator/index.js");
const { buildContext } = require(
  dist("provider/pve/connection.js"),
) as typeof import("../provider/pve/connection.js");
const { checkTemplate } = require(
  dist("provider/template/template-inputs.js"),
) as typeof import("../provider/template/template-inputs.js");
const { createTemplate } = require(
  dist("provider/template/create.js"),
) as typeof import("../provider/template/create.js");
const { deleteTemplate } = require(
  dist("provider/template/delete.js"),
) as typeof import("../provider/template/delete.js");
const { closeSharedDispatchers } = require(
  dist("provider/pve/api/dispatcher-registry.js"),
) as typeof import("../provider/pve/api/dispatcher-registry.js");
/* eslint-enable @typescript-eslint/no-require-imports */

const { values } = parseArgs({ options: { mib: { type: "string", default: "256" } } });
const image = Buffer.alloc(Number(values.mib) * 1024 * 1024, 7);

async function main(): Promise<void> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-length": String(image.length) }).end(image);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as import("node:net").AddressInfo;
  const sim = await startSimulator({
    defaultTaskMs: 0,
    storages: [
      { storage: "local", type: "dir", content: ["iso", "import"], shared: false },
      { storage: "local-lvm", type: "lvmthin", content: ["images"], shared: false },
    ],
    templates: [],
  });
  const agent = new Agent({ connect: { ca: sim.caCertPem } });
  const call = async (method: string, path: string, body?: Record<string, string | number>) => {
    const res = await request(`${sim.url}/api2/json${path}`, {
      method: method as "POST",
      dispatcher: agent,
      headers: {
        authorization: `PVEAPIToken=${sim.apiToken}`,
        ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
      },
      ...(body === undefined
        ? {}
        : {
            body: new URLSearchParams(
              Object.entries(body).map(([k, v]): [string, string] => [k, String(v)]),
            ).toString(),
          }),
    });
    return ((await res.body.json()) as { data: unknown }).data;
  };
  const timed = async (
    what: string,
    method: string,
    path: string,
    body?: Record<string, string | number>,
  ) => {
    const started = performance.now();
    const upid = String(await call(method, path, body));
    for (;;) {
      const status = (await call(
        "GET",
        `/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`,
      )) as {
        status: string;
        exitstatus?: string;
      };
      if (status.status === "stopped") {
        if (status.exitstatus !== "OK") throw new Error(`${what}: ${status.exitstatus}`);
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    return performance.now() - started;
  };
  const download = await timed("download", "POST", "/nodes/pve1/storage/local/download-url", {
    url: `http://127.0.0.1:${port}/image.qcow2`,
    content: "import",
    filename: "image.qcow2",
  });
  const create = await timed("create", "POST", "/nodes/pve1/qemu", {
    vmid: 100,
    scsi0: "local-lvm:0,import-from=local:import/image.qcow2",
  });
  const template = await timed("template", "POST", "/nodes/pve1/qemu/100/template");
  const clone = await timed("clone", "POST", "/nodes/pve1/qemu/100/clone", { newid: 101 });
  const mib = image.length / 1024 / 1024;
  console.log(
    `download-url: ${mib} MiB in ${download.toFixed(0)} ms (${((mib * 1000) / download).toFixed(0)} MiB/s)`,
  );
  console.log(`create with import-from: ${create.toFixed(1)} ms`);
  console.log(`template conversion: ${template.toFixed(1)} ms`);
  console.log(`linked clone: ${clone.toFixed(1)} ms`);
  await agent.close();
  await sim.close();
  await providerRequests(`http://127.0.0.1:${port}/image.qcow2`);
  server.close();
}

/** Requests of one template create and delete by the provider, as pve-sim's defaults time them. */
async function providerRequests(url: string): Promise<void> {
  const sim = await startSimulator({
    taskDurationsMs: REALISTIC_TASK_MS,
    defaultTaskMs: 1000,
    listingLagMs: 1000,
    storages: [
      { storage: "local", type: "dir", content: ["iso", "import"], shared: false },
      { storage: "local-lvm", type: "lvmthin", content: ["images"], shared: false },
    ],
    templates: [],
  });
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": sim.apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  const quiet = { ...buildContext({ get: (key) => config[key] }), progress: () => undefined };
  const inputs = checkTemplate({
    identity: { project: "bench", stack: "bench", name: "debian-12" },
    url,
    node: "pve1",
  }).inputs as Parameters<typeof createTemplate>[1];
  const measure = async <T>(label: string, step: () => Promise<T>): Promise<T> => {
    const before = sim.requestLog.length;
    const started = performance.now();
    const result = await step();
    const wallS = (performance.now() - started) / 1000;
    const requests = sim.requestLog.slice(before);
    const byKind = new Map<string, number>();
    for (const { method, path } of requests) {
      const kind = `${method} ${path
        .replace(/\/UPID:[^/]+/, "/{upid}")
        .replace(/\/qemu\/\d+/, "/qemu/{vmid}")
        .replace(/^\/nodes\/[^/]+/, "/nodes/{node}")
        .replace(/\/content\/.+$/, "/content/{volid}")}`;
      byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    }
    console.log(`\n${label}: ${requests.length} requests, ${wallS.toFixed(1)} s wall`);
    for (const [kind, n] of [...byKind].sort((a, b) => b[1] - a[1])) {
      console.log(`  ${String(n).padStart(4)}  ${kind}`);
    }
    return result;
  };
  try {
    const state = await measure(
      "CloudImageTemplate create (provider, pve-sim's task durations)",
      () => createTemplate(quiet, inputs),
    );
    await measure("CloudImageTemplate delete", () => deleteTemplate(quiet, state));
  } finally {
    await sim.close();
    await closeSharedDispatchers();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
