/**
 * Where the provider process's memory goes: what Pulumi's dynamic-provider host loads before the
 * first resource, what the provider's runtime adds, and the peak of N concurrent creates and then
 * N reads, in this process, against a simulator in a child process (so its memory is not
 * counted). Run after `npm run build`:
 *
 *   npm run bench:memory            # N = 50
 *   MEMORY_VMS=100 npm run bench:memory
 *
 * Prints figures only; exits non-zero only when it cannot run.
 */
/* eslint-disable @typescript-eslint/no-require-imports --
   The package is CommonJS, so Node's type stripping runs this file as CJS: `import` statements
   would not load, `require` does. And each load below is what is measured, in its order. */
const { spawn } = require("node:child_process") as typeof import("node:child_process");
const { resolve } = require("node:path") as typeof import("node:path");
const { createInterface } = require("node:readline") as typeof import("node:readline");

const VMS = Number(process.env["MEMORY_VMS"] ?? 50);
const dist = resolve(__dirname, "..", "dist");
const gc = (globalThis as { gc?: () => void }).gc;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

type Usage = NodeJS.MemoryUsage;
const rows: string[] = [];
let previousRss: number | undefined;
function row(what: string, m: Usage): void {
  const added =
    previousRss === undefined ? "" : `${m.rss >= previousRss ? "+" : ""}${mb(m.rss - previousRss)}`;
  previousRss = m.rss;
  rows.push(
    `| ${what} | ${mb(m.rss)} | ${added} | ${mb(m.heapUsed)} | ${mb(m.heapTotal)} | ${mb(m.arrayBuffers)} |`,
  );
}
function settled(): Usage {
  gc?.();
  return process.memoryUsage();
}

/** The highest RSS seen while `work` runs, sampled every 20 ms, with the usage at that moment. */
async function peakOf(work: () => Promise<unknown>): Promise<Usage> {
  let peak = process.memoryUsage();
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    if (now.rss > peak.rss) peak = now;
  }, 20);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return peak;
}

async function main(): Promise<void> {
  if (gc === undefined) throw new Error("run with --expose-gc (npm run bench:memory does)");
  const child = spawn(
    process.execPath,
    [resolve(dist, "simulator", "cli.js"), "--port", "0", "--http", "--task-ms", "100"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    const ready = await new Promise<string>((done) =>
      createInterface({ input: child.stdout }).once("line", done),
    );
    const sim = JSON.parse(ready) as { url: string; apiToken: string };
    // Type stripping loads TypeScript's stripper into this process: compare the added column.
    row("node running this script", settled());
    // What the host (`@pulumi/pulumi/cmd/dynamic-provider`) requires before serving a call.
    require("@pulumi/pulumi/runtime");
    require("@pulumi/pulumi/proto/provider_grpc_pb");
    const host = settled();
    row("+ Pulumi's dynamic-provider host modules", host);
    const typescriptLoaded = Object.keys(require.cache).some((k) =>
      k.includes("/node_modules/typescript/"),
    );
    const runtime = require(
      resolve(dist, "provider", "glue/runtime.js"),
    ) as typeof import("../provider/glue/runtime");
    const { checkVm } = require(
      resolve(dist, "provider", "operations", "check.js"),
    ) as typeof import("../provider/vm/operations/check");
    row("+ the provider's runtime as check and diff load it (zod, the spec)", settled());

    const config: Record<string, string> = {
      "proxmox:endpoint": sim.url,
      "proxmox:apiToken": sim.apiToken,
    };
    await runtime.configure({ get: (key) => config[key] });
    const inputs = (i: number) =>
      checkVm(
        {},
        {
          identity: { project: "bench", stack: "memory", name: `vm-${i}` },
          node: i % 2 === 1 ? "pve2" : "pve1",
          template: i % 2 === 1 ? 9001 : 9000,
          cores: 1,
          memory: 512,
          cloudInit: { packages: ["htop"] },
        },
      ).inputs;
    const log = console.log;
    console.log = () => undefined;
    let created: { id: string; outs: Record<string, unknown> }[] = [];
    try {
      const createPeak = await peakOf(async () => {
        created = await Promise.all(
          Array.from({ length: VMS }, (_, i) => runtime.create(inputs(i))),
        );
      });
      row(`peak during ${VMS} concurrent creates`, createPeak);
      row(`after the creates, garbage collected`, settled());
      const readPeak = await peakOf(() =>
        Promise.all(created.map((vm) => runtime.read(vm.id, vm.outs))),
      );
      row(`peak during ${VMS} concurrent reads`, readPeak);
    } finally {
      console.log = log;
    }
    console.log(
      [
        `bench:memory: ${VMS} VMs; TypeScript loaded by the host: ${typescriptLoaded}`,
        "",
        "| where | RSS | added RSS | heap used | heap total | array buffers |",
        "|---|---|---|---|---|---|",
        ...rows,
      ].join("\n"),
    );
  } finally {
    child.kill("SIGTERM");
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
