// Benchmark of the ProxmoxVm operations against the simulator, through the real HTTP client.
// Run from the repository root after `npm run build`:
//
//   npm run bench:resource
//
// Prints, from the simulator's request log: API requests per create / read / update / delete
// of one VM (grouped by kind), the requests of a refresh of 10 VMs in one process (listings
// included), and create wall time against the sum of the simulator's task durations.
import { createRequire } from "node:module";
import * as path from "node:path";

const load = createRequire(path.resolve("dist", "bench.js"));
const { startSimulator } = load("./simulator/index.js") as typeof import("../simulator/index.js");
const { buildContext } = load(
  "./provider/pve/connection.js",
) as typeof import("../provider/pve/connection.js");
const { checkVm } = load(
  "./provider/vm/operations/check.js",
) as typeof import("../provider/vm/operations/check.js");
const { createVm } = load(
  "./provider/vm/operations/create.js",
) as typeof import("../provider/vm/operations/create.js");
const { readVm } = load(
  "./provider/vm/operations/read.js",
) as typeof import("../provider/vm/operations/read.js");
const { updateVm } = load(
  "./provider/vm/operations/update.js",
) as typeof import("../provider/vm/operations/update.js");
const { deleteVm } = load(
  "./provider/vm/operations/delete.js",
) as typeof import("../provider/vm/operations/delete.js");
const { closeSharedDispatchers } = load(
  "./provider/pve/api/dispatcher-registry.js",
) as typeof import("../provider/pve/api/dispatcher-registry.js");

type Resolved = Parameters<typeof createVm>[1];

const DURATIONS: Record<string, number> = {
  qmclone: 2_000,
  imgcopy: 300,
  qmconfig: 100,
  qmstart: 500,
  qmreboot: 500,
  qmstop: 500,
  qmshutdown: 500,
  qmdestroy: 500,
  imgdel: 100,
  resize: 200,
};
const GUEST_BOOT_MS = 1_000;

const inputs = (name: string, extra: Record<string, unknown> = {}) =>
  checkVm(
    {},
    {
      identity: { project: "bench", stack: "bench", name },
      node: "pve1",
      template: 9000,
      cores: 2,
      memory: 1024,
      cloudInit: { packages: ["nginx"] },
      ...extra,
    },
  ).inputs as Resolved;

/** `GET /cluster/resources` → `GET cluster/resources`; VMIDs and UPIDs folded away. */
function kind(method: string, apiPath: string): string {
  const folded = apiPath
    .replace(/\/UPID:[^/]+/, "/{upid}")
    .replace(/\/qemu\/\d+/, "/qemu/{vmid}")
    .replace(/^\/nodes\/[^/]+/, "/nodes/{node}")
    .replace(/\/content\/.+$/, "/content/{volid}");
  return `${method} ${folded}`;
}

async function main(): Promise<void> {
  const sim = await startSimulator({
    taskDurationsMs: DURATIONS,
    guestBootMs: GUEST_BOOT_MS,
    listingLagMs: 1_000,
  });
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": sim.apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  const ctx = buildContext({ get: (key) => config[key] });
  // The progress lines would drown the figures.
  const quiet = { ...ctx, progress: () => undefined, warn: () => undefined };

  const measure = async <T>(label: string, step: () => Promise<T>): Promise<T> => {
    const before = sim.requestLog.length;
    const tasksBefore = new Set(sim.model.tasks.keys());
    const started = performance.now();
    const result = await step();
    const wallMs = performance.now() - started;
    const requests = sim.requestLog.slice(before);
    const byKind = new Map<string, number>();
    for (const r of requests)
      byKind.set(kind(r.method, r.path), (byKind.get(kind(r.method, r.path)) ?? 0) + 1);
    const taskMs = [...sim.model.tasks.values()]
      .filter((t) => !tasksBefore.has(t.upid))
      .reduce((sum, t) => sum + (DURATIONS[t.type] ?? 0), 0);
    console.log(
      `\n${label}: ${requests.length} requests, ${(wallMs / 1000).toFixed(2)} s wall, ` +
        `${(taskMs / 1000).toFixed(2)} s of task time`,
    );
    for (const [k, n] of [...byKind].sort((a, b) => b[1] - a[1]))
      console.log(`  ${String(n).padStart(4)}  ${k}`);
    return result;
  };

  try {
    const created = await measure(
      "create (clone, seed upload, config, start, agent wait; guest boots in 1 s)",
      () => createVm(quiet, inputs("one")),
    );
    await measure("read (refresh of one VM)", () => readVm(quiet, created));
    const updated = await measure(
      "update (cores 2 → 4 on a running VM: config, reboot, agent)",
      () => updateVm(quiet, created, inputs("one", { cores: 4 })),
    );
    await measure("delete (stop, seed on every node, destroy)", () => deleteVm(quiet, updated));

    const ten = await measure("create of 10 VMs at once (one process)", () =>
      Promise.all(Array.from({ length: 10 }, (_, i) => createVm(quiet, inputs(`fleet-${i}`)))),
    );
    await new Promise((r) => setTimeout(r, 2_500)); // past the listing's freshness window
    await measure("refresh of 10 VMs at once (one process)", () =>
      Promise.all(ten.map((vm) => readVm(quiet, vm))),
    );
    await Promise.all(ten.map((vm) => deleteVm(quiet, vm)));
  } finally {
    await sim.close();
    await closeSharedDispatchers();
  }
}

void main();
