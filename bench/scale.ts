// Fifty VMs as fast as one: `pulumi up` of 1, 10, 50 and 100 VMs through the real engine
// against a simulator with jittered realistic task durations, per-request latency and PVE's
// per-node API worker limit; `preview --refresh` of 100 VMs against 100 no-op dynamic
// resources; `destroy` of 50. Prints one table with the ratios and the goals beside them, and
// beside each N-VM up the floor no provider can beat: the engine's own cost of N resources plus
// the slowest of the N critical paths (tasks and boot) the simulator's jitter draws.
//
//   npm run bench:scale
//   SCALE_SIZES=10,50 SCALE_PARALLEL=64 SCALE_LATENCY_MS=20 npm run bench:scale
//   SCALE_HEAVY_TASKS=2 npm run bench:scale   # proxmox:heavyTasksPerNode (default: unset)
//   SCALE_STORAGE_MIBPS=1024 [SCALE_CLONE=linked] npm run bench:scale  # storage bandwidth model
//
// Exits non-zero only when it cannot run (a failed `up` or `destroy`), never on a timing.
import { performance } from "node:perf_hooks";
import * as fs from "node:fs";
import { it } from "vitest";
import { DEFAULT_PARALLEL } from "../cli/engine-command";
import { startSimulator, type Simulator } from "../simulator";
import { jittered } from "../simulator/http/api-workers";
import { requestKind } from "../test/e2e/support/crash-harness";
import { engineEnv, pulumi, type EngineEnv } from "../test/e2e/support/engine";
import { findProcesses } from "../test/e2e/support/processes";
import { guestVms, proxmoxStack } from "../test/e2e/support/proxmox-stack";
import { scaleSimulatorOptions } from "./support/scale-simulator";

const SIZES = (process.env["SCALE_SIZES"] ?? "10,50,100").split(",").map(Number);
/** The parallelism `pulumi-proxmox up` picks, unless the run asks for another. */
const PARALLEL = process.env["SCALE_PARALLEL"] ?? String(DEFAULT_PARALLEL);
const LATENCY_MS = Number(process.env["SCALE_LATENCY_MS"] ?? 20);
const API_WORKERS = Number(process.env["SCALE_API_WORKERS"] ?? 3);
/** `proxmox:heavyTasksPerNode` for the VM stacks; unset leaves the provider's default. */
const HEAVY_TASKS = process.env["SCALE_HEAVY_TASKS"];
/** MiB/s of every image storage, shared by the copies on it; unset: a clone takes 3 s whatever. */
const STORAGE_MIBPS = process.env["SCALE_STORAGE_MIBPS"];
/** `linked` clones copy nothing; `full` (the default) copies the template's disk. */
const LINKED = process.env["SCALE_CLONE"] === "linked";
const SIM_OPTIONS = {
  ...scaleSimulatorOptions({ latencyMs: LATENCY_MS, apiWorkers: API_WORKERS }),
  ...(STORAGE_MIBPS === undefined
    ? {}
    : {
        storageBandwidthMiBps: {
          shared: Number(STORAGE_MIBPS),
          "local-lvm": Number(STORAGE_MIBPS),
        },
      }),
};
const REFRESH_SIZE = Math.max(...SIZES);
const DESTROY_SIZE = SIZES.includes(50) ? 50 : Math.max(...SIZES);

const TASK_BASE_MS: Readonly<Record<string, number | undefined>> = SIM_OPTIONS.taskDurationsMs;

function vmProgram(count: number): string {
  return `
const { ProxmoxVm } = require("pulumi-proxmox");
for (let i = 0; i < ${count}; i++) {
  // Half on each node, each cloned from the template on its own node.
  const onPve2 = i % 2 === 1;
  new ProxmoxVm("vm-" + i, {
    node: onPve2 ? "pve2" : "pve1",
    template: onPve2 ? 9001 : 9000,
    cores: 1,
    memory: 512,${LINKED ? "\n    clone: { full: false }," : ""}
    cloudInit: { packages: ["htop"] },
  });
}
`;
}

/** A stack of `count` VMs, with the run's `heavyTasksPerNode` when it sets one. */
async function vmStack(name: string, count: number, sim: Simulator, engine: EngineEnv) {
  const dir = await proxmoxStack(name, vmProgram(count), sim, engine);
  if (HEAVY_TASKS !== undefined) {
    const set = ["config", "set", "proxmox:heavyTasksPerNode", HEAVY_TASKS];
    const result = await pulumi(set, dir, engine.env);
    if (result.code !== 0) throw new Error(`pulumi config set failed: ${result.stderr}`);
  }
  return dir;
}

function noopProgram(count: number): string {
  return `
const pulumi = require("@pulumi/pulumi");
const provider = {
  async create(inputs) { return { id: "noop-" + inputs.i, outs: inputs }; },
  async read(id, props) { return { id, props }; },
};
for (let i = 0; i < ${count}; i++) {
  new pulumi.dynamic.Resource(provider, "noop-" + i, { i }, {});
}
`;
}

/** The durations (ms, before jitter) of the PVE tasks a run started, in the order it started them. */
function taskBasesSince(sim: Simulator, before: ReadonlySet<string>): number[] {
  return [...sim.model.tasks.values()]
    .filter((task) => !before.has(task.upid))
    .map((task) => TASK_BASE_MS[task.type] ?? SIM_OPTIONS.defaultTaskMs);
}

/**
 * The expected duration of the slowest of `n` VMs' critical paths when each step (`steps`: the
 * tasks one create runs one after the other, then the guest boot) is drawn as the simulator draws
 * it: no provider, however quick, finishes `n` VMs before their slowest path has run.
 */
function expectedSlowestPathMs(steps: readonly number[], n: number, trials = 2000): number {
  let sum = 0;
  for (let trial = 0; trial < trials; trial++) {
    let slowest = 0;
    for (let vm = 0; vm < n; vm++) {
      let path = 0;
      for (const base of steps) path += jittered(base, SIM_OPTIONS.taskJitter);
      slowest = Math.max(slowest, path);
    }
    sum += slowest;
  }
  return sum / trials;
}

/**
 * With a storage bandwidth, no provider finishes N full clones before the one shared storage
 * has copied N template disks (both templates' disks are on \`shared\`), plus the rest of the
 * last VM's path; linked clones copy nothing, so their floor stays the drawn paths'.
 */
function storageFloorS(sim: Simulator, n: number, steps: readonly number[]): number {
  if (STORAGE_MIBPS === undefined || LINKED) return 0;
  const disk = sim.model
    .volumes("pve1", "shared")
    .find((v) => v.volid === "shared:base-9000-disk-0");
  const copyAllS = (n * (disk?.size ?? 0)) / 1024 ** 2 / Number(STORAGE_MIBPS);
  const restS = (steps.reduce((a, b) => a + b, 0) - (TASK_BASE_MS["qmclone"] ?? 0)) / 1000;
  return copyAllS + restS;
}

interface Measured {
  readonly seconds: number;
  readonly requests: number;
  /** `GET /cluster/resources`. */
  readonly listings: number;
  /** `GET /nodes/{node}/qemu` (a refresh's status of every VM on the node). */
  readonly nodeListings: number;
  readonly taskPolls: number;
  readonly peakRssMb: number;
  /** Share of the wall time this process's event loop (the simulator's) was busy. */
  readonly simulatorBusy: number;
  /**
   * The busiest node's API worker time: its requests × the latency each holds a worker for ÷ its
   * workers. However well spread, the requests of a run take at least this long.
   */
  readonly workerBoundSeconds: number;
}

/** A request's node: the one in its path, else the first, which serves node-less paths. */
function servingNode(path: string): string {
  return /^\/nodes\/([^/]+)/.exec(path)?.[1] ?? "pve1";
}

/** Runs one `pulumi` command and measures it; throws when it fails (the bench cannot go on). */
async function measure(
  sim: Simulator,
  engine: EngineEnv,
  dir: string,
  args: string[],
): Promise<Measured> {
  sim.clearRequestLog();
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, providerRssBytes(engine.marker));
  }, 200);
  const loop = performance.eventLoopUtilization();
  const started = performance.now();
  const result = await pulumi(args, dir, engine.env);
  const seconds = (performance.now() - started) / 1000;
  const busy = performance.eventLoopUtilization(loop).utilization;
  clearInterval(sampler);
  if (result.code !== 0) {
    throw new Error(`pulumi ${args.join(" ")} failed:\n${result.stderr}${result.stdout}`);
  }
  const kinds = sim.requestLog.map(requestKind);
  const perNode = new Map<string, number>();
  for (const entry of sim.requestLog) {
    const node = servingNode(entry.path);
    perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  const busiest = Math.max(0, ...perNode.values());
  return {
    workerBoundSeconds: (busiest * LATENCY_MS) / API_WORKERS / 1000,
    seconds,
    requests: kinds.length,
    listings: kinds.filter((k) => k === "GET /cluster/resources").length,
    nodeListings: kinds.filter((k) => k === "GET /nodes/{node}/qemu").length,
    // A task's own status, or the node's task list that answers for every task waited on.
    taskPolls: kinds.filter((k) => /\/tasks(\/\{[a-z]+\}\/status)?$/.test(k)).length,
    peakRssMb: peakRss / 1024 / 1024,
    simulatorBusy: busy,
  };
}

/**
 * RSS of the run's largest dynamic-provider process: the memory goal is per process, and a
 * `preview --refresh` runs two (one for the refresh, one for the preview).
 */
function providerRssBytes(marker: string): number {
  const providers = findProcesses(
    (p) =>
      p.cmdline.includes("dynamic-provider") && p.environ.some((entry) => entry.includes(marker)),
  );
  let largest = 0;
  for (const p of providers) {
    try {
      const status = fs.readFileSync(`/proc/${p.pid}/status`, "utf8");
      largest = Math.max(largest, Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024);
    } catch {
      // Exited meanwhile.
    }
  }
  return largest;
}

const parallelArgs = ["--parallel", PARALLEL];
const up = ["up", "--yes", "--skip-preview", ...parallelArgs];
const destroy = ["destroy", "--yes", "--skip-preview", ...parallelArgs];

interface Row {
  readonly what: string;
  readonly value: string;
  readonly goal: string;
}

it("measures T1, N-VM ups, a refresh and a destroy, and prints the table", async () => {
  const sim = await startSimulator(SIM_OPTIONS);
  const engine = engineEnv();
  const rows: Row[] = [];
  const row = (what: string, value: string, goal = ""): void =>
    void rows.push({ what, value, goal });
  try {
    const one = await vmStack("scale-1", 1, sim, engine);
    const tasksBefore = new Set(sim.model.tasks.keys());
    const t1 = await measure(sim, engine, one, up);
    // One create's tasks run one after the other, then the guest boots: its critical path.
    const pathSteps = [...taskBasesSince(sim, tasksBefore), SIM_OPTIONS.guestBootMs];
    await measure(sim, engine, one, destroy);
    const noopOne = await proxmoxStack("noop-1", noopProgram(1), sim, engine);
    const engineOne = await measure(sim, engine, noopOne, up);
    await measure(sim, engine, noopOne, destroy);
    const onePathS = Math.max(
      expectedSlowestPathMs(pathSteps, 1) / 1000,
      storageFloorS(sim, 1, pathSteps),
    );
    row(
      "storage",
      STORAGE_MIBPS === undefined
        ? "no bandwidth model: a clone takes 3 s (SCALE_STORAGE_MIBPS=n to share n MiB/s per storage)"
        : `${STORAGE_MIBPS} MiB/s per storage, shared by the copies on it; ${LINKED ? "linked" : "full"} clones`,
    );
    row("T1: up of 1 VM", `${t1.seconds.toFixed(1)} s`);
    row(
      "  floor: the engine alone + the VM's PVE tasks and boot",
      `${(engineOne.seconds + onePathS).toFixed(1)} s = up of 1 no-op resource ` +
        `${engineOne.seconds.toFixed(1)} s + ${onePathS.toFixed(1)} s (${pathSteps.length - 1} tasks); ` +
        `the provider adds ${(t1.seconds - engineOne.seconds - onePathS).toFixed(1)} s`,
    );
    row("requests per create (1 VM)", `${t1.requests} (${t1.taskPolls} task polls)`, "≤ 25");

    for (const size of SIZES) {
      const dir = await vmStack(`scale-${size}`, size, sim, engine);
      const created = await measure(sim, engine, dir, up);
      if (guestVms(sim).length !== size) {
        throw new Error(`up of ${size} VMs left ${guestVms(sim).length} VMs`);
      }
      const goal = size >= 100 ? "≤ 1.3 × T1" : size >= 50 ? "≤ 1.15 × T1" : "";
      row(
        `up of ${size} VMs`,
        `${created.seconds.toFixed(1)} s = ${(created.seconds / t1.seconds).toFixed(2)} × T1`,
        goal,
      );
      // What no provider can beat: the engine's own cost of N resources, plus the slowest of
      // the N paths the simulator draws, against the same for one VM.
      const noop = await proxmoxStack(`noop-${size}`, noopProgram(size), sim, engine);
      const engineN = await measure(sim, engine, noop, up);
      const slowestS = Math.max(
        expectedSlowestPathMs(pathSteps, size) / 1000,
        storageFloorS(sim, size, pathSteps),
      );
      const floorS = engineN.seconds + slowestS;
      row(
        `  floor: the engine alone + the slowest of ${size} drawn paths`,
        `${floorS.toFixed(1)} s = ${(floorS / t1.seconds).toFixed(2)} × T1 = up of ${size} no-op ` +
          `resources ${engineN.seconds.toFixed(1)} s + ${slowestS.toFixed(1)} s; the provider adds ` +
          `${(created.seconds - floorS).toFixed(1)} s`,
      );
      row(
        `  requests per create; listings`,
        `${(created.requests / size).toFixed(1)} (${(created.taskPolls / size).toFixed(1)} task polls); ` +
          `${created.listings} listings`,
        "≤ 25; O(1) listings",
      );
      row(
        `  peak provider RSS; simulator busy`,
        `${created.peakRssMb.toFixed(0)} MB; ${(created.simulatorBusy * 100).toFixed(0)} %`,
        size >= 100 ? "≤ 150 MB" : "",
      );

      if (size === REFRESH_SIZE) {
        const refreshArgs = ["preview", "--refresh", ...parallelArgs];
        const baseline = await measure(sim, engine, noop, refreshArgs);
        const refreshed = await measure(sim, engine, dir, refreshArgs);
        row(
          `preview --refresh of ${size} VMs`,
          `${refreshed.seconds.toFixed(1)} s = ${(refreshed.seconds / baseline.seconds).toFixed(2)} × ` +
            `${size} no-op resources (${baseline.seconds.toFixed(1)} s)`,
          "≤ 1.2 ×",
        );
        const floorS = baseline.seconds + refreshed.workerBoundSeconds;
        row(
          `  floor: the no-op refresh + the busiest node's API worker time`,
          `${floorS.toFixed(1)} s = ${(floorS / baseline.seconds).toFixed(2)} × = ` +
            `${baseline.seconds.toFixed(1)} s + ${refreshed.workerBoundSeconds.toFixed(2)} s ` +
            `(its requests × ${LATENCY_MS} ms ÷ ${API_WORKERS} workers); the provider adds ` +
            `${(refreshed.seconds - floorS).toFixed(1)} s`,
        );
        row(
          `  requests per VM; listings`,
          `${(refreshed.requests / size).toFixed(2)}; ${refreshed.listings} cluster + ` +
            `${refreshed.nodeListings} node listings`,
          "≤ 2 + O(nodes)",
        );
        // The floor: Pulumi's own dynamic-provider host with resources that do nothing.
        row(
          `  peak provider RSS: ${size} VMs vs ${size} no-op resources`,
          `refresh ${refreshed.peakRssMb.toFixed(0)} vs ${baseline.peakRssMb.toFixed(0)} MB; ` +
            `up ${created.peakRssMb.toFixed(0)} vs ${engineN.peakRssMb.toFixed(0)} MB`,
          size >= 100 ? "≤ 150 MB" : "",
        );
      }
      await measure(sim, engine, noop, destroy);

      const destroyed = await measure(sim, engine, dir, destroy);
      if (size === DESTROY_SIZE) {
        row(
          `destroy of ${size} VMs`,
          `${destroyed.seconds.toFixed(1)} s; ${destroyed.listings} listings; ` +
            `${(destroyed.requests / size).toFixed(1)} requests per VM`,
          "O(1) listings",
        );
      }
    }
  } finally {
    printTable(rows);
    await sim.close();
    engine.cleanup();
  }
});

function printTable(rows: readonly Row[]): void {
  const lines = [
    `bench:scale: --parallel ${PARALLEL}, ${LATENCY_MS} ms per request, ` +
      `${API_WORKERS} API workers per node, clone 3 s / start 1 s / boot 1 s ±30 %, ` +
      `heavyTasksPerNode ${HEAVY_TASKS ?? "unset"}`,
    "",
    "| what | measured | goal |",
    "|---|---|---|",
    ...rows.map((r) => `| ${r.what} | ${r.value} | ${r.goal} |`),
  ];
  console.log(lines.join("\n"));
}
