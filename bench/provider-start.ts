/**
 * How fast a fresh provider process answers its first call, as each of the two processes of
 * `preview --refresh` does: one reads a VM (the refresh), one checks and diffs it (the preview).
 * Each run is a new node that requires the built dynamic provider and times from that `require`
 * to the answer, then counts the modules it loaded and its RSS. Against a simulator in this
 * process (the children are what is measured), with one VM created first. Run after `npm run build`:
 *
 *   npm run bench:start             # 7 runs of each
 *   START_RUNS=15 npm run bench:start
 *
 * Prints figures only; exits non-zero only when it cannot run.
 */
/* eslint-disable @typescript-eslint/no-require-imports --
   The package is CommonJS, so Node's type stripping runs this file as CJS: `import` statements
   would not load, `require` does. */
const { execFile } = require("node:child_process") as typeof import("node:child_process");
const { promisify } = require("node:util") as typeof import("node:util");

/** Asynchronous: the simulator answers the children from this process's event loop. */
const run = promisify(execFile);
const { resolve } = require("node:path") as typeof import("node:path");

const RUNS = Number(process.env["START_RUNS"] ?? 7);
const dist = resolve(__dirname, "..", "dist");

/** The child: the calls come in PROBE_CALLS, the figures go out as the last stdout line. */
const PROBE = `
const started = process.hrtime.bigint();
const provider = require(${JSON.stringify(resolve(dist, "provider", "dynamic-provider.js"))});
(async () => {
  await provider.configure({ config: { get: (key) => JSON.parse(process.env.PROBE_CONFIG)[key] } });
  for (const [method, ...args] of JSON.parse(process.env.PROBE_CALLS)) await provider[method](...args);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const modules = Object.keys(require.cache).length;
  process.stdout.write("\\n" + JSON.stringify({ ms, modules, rss: process.memoryUsage().rss }));
})();
`;

interface Run {
  ms: number;
  modules: number;
  rss: number;
}

async function probe(calls: unknown[][], config: Record<string, string>): Promise<Run> {
  const { stdout } = await run(process.execPath, ["-e", PROBE], {
    env: {
      ...process.env,
      PROBE_CALLS: JSON.stringify(calls),
      PROBE_CONFIG: JSON.stringify(config),
    },
  });
  return JSON.parse(stdout.split("\n").pop() ?? "") as Run;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

async function main(): Promise<void> {
  const { startSimulator } = require(
    resolve(dist, "simulator", "index.js"),
  ) as typeof import("../simulator/index.js");
  const sim = await startSimulator();
  try {
    const config = {
      "proxmox:endpoint": sim.url,
      "proxmox:apiToken": sim.apiToken,
      "proxmox:caCert": sim.caCertPem,
    };
    const declared = {
      identity: { project: "bench", stack: "start", name: "vm" },
      node: "pve1",
      template: 9000,
      cloudInit: { packages: ["htop"] },
    };
    // One VM, created by a provider process; its outputs are the state a refresh reads.
    const { stdout: created } = await run(
      process.execPath,
      [
        "-e",
        `const p = require(${JSON.stringify(resolve(dist, "provider", "dynamic-provider.js"))});
         console.log = () => undefined;
         p.configure({ config: { get: (k) => JSON.parse(process.env.PROBE_CONFIG)[k] } });
         p.check({}, JSON.parse(process.env.PROBE_DECLARED))
           .then(({ inputs }) => p.create(inputs))
           .then((r) => process.stdout.write("\\n" + JSON.stringify(r)));`,
      ],
      {
        env: {
          ...process.env,
          PROBE_CONFIG: JSON.stringify(config),
          PROBE_DECLARED: JSON.stringify(declared),
        },
      },
    );
    const vm = JSON.parse(created.split("\n").pop() ?? "") as {
      id: string;
      outs: Record<string, unknown>;
    };
    const news = { ...vm.outs, cores: 2 };
    const scenarios: [string, unknown[][]][] = [
      ["refresh: read of one VM", [["read", vm.id, vm.outs]]],
      [
        "preview: check and diff of one VM",
        [
          ["check", vm.outs, news],
          ["diff", vm.id, vm.outs, news],
        ],
      ],
    ];
    console.log(`bench:start: ${RUNS} fresh provider processes per row, median (min)\n`);
    console.log("| first answer of a fresh process | require → answer | modules loaded | RSS |");
    console.log("|---|---|---|---|");
    for (const [what, calls] of scenarios) {
      const runs: Run[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await probe(calls, config));
      const ms = runs.map((r) => r.ms);
      console.log(
        `| ${what} | ${median(ms).toFixed(0)} ms (${Math.min(...ms).toFixed(0)} ms) | ${median(runs.map((r) => r.modules))} | ${(median(runs.map((r) => r.rss)) / 1024 / 1024).toFixed(1)} MB |`,
      );
    }
  } finally {
    await sim.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
