/**
 * How fast a fresh provider process answers its first call, as each of the two processes of
 * `preview --refresh` does: one reads a VM (the refresh), one checks and diffs it (the preview).
 * Each run is a new node that requires the built dynamic provider and times from that `require`
 * to the answer, then counts the modules it loaded and its RSS. Against a simulator in a child
 * process, with one VM created first. Run after `npm run build`:
 *
 *   npm run bench:start             # 7 runs of each
 *   START_RUNS=15 npm run bench:start
 *
 * Prints figures only; exits non-zero only when it cannot run.
 */
/* eslint-disable @typescript-eslint/no-require-imports --
   The package is CommonJS, so Node's type stripping runs this file as CJS: `import` statements
   would not load, `require` does. */
const { execFileSync, spawn } =
  require("node:child_process") as typeof import("node:child_process");
const { resolve } = require("node:path") as typeof import("node:path");
const { createInterface } = require("node:readline") as typeof import("node:readline");

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

function probe(calls: unknown[][], config: Record<string, string>): Run {
  const stdout = execFileSync(process.execPath, ["-e", PROBE], {
    encoding: "utf8",
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
    const config = { "proxmox:endpoint": sim.url, "proxmox:apiToken": sim.apiToken };
    const declared = {
      identity: { project: "bench", stack: "start", name: "vm" },
      node: "pve1",
      template: 9000,
      cloudInit: { packages: ["htop"] },
    };
    // One VM, created by a provider process; its outputs are the state a refresh reads.
    const created = execFileSync(
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
        encoding: "utf8",
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
      const runs = Array.from({ length: RUNS }, () => probe(calls, config));
      const ms = runs.map((r) => r.ms);
      console.log(
        `| ${what} | ${median(ms).toFixed(0)} ms (${Math.min(...ms).toFixed(0)} ms) | ${median(runs.map((r) => r.modules))} | ${(median(runs.map((r) => r.rss)) / 1024 / 1024).toFixed(1)} MB |`,
      );
    }
  } finally {
    child.kill();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
