/**
 * Simple GETs per second against the simulator (one Node process = one core), over HTTPS with
 * keep-alive, the way the provider talks to it. Run after `npm run build`:
 *
 *   node bench/simulator-gets.ts [--seconds 5] [--connections 8]
 *
 * Node >= 22.18 runs this file directly (type stripping); it uses the built CLI from dist/.
 */
/* eslint-disable @typescript-eslint/no-require-imports --
   The package is CommonJS, so Node's type stripping runs this file as CJS: `import` statements
   would not load, `require` does. */
const { spawn } = require("node:child_process") as typeof import("node:child_process");
const { resolve } = require("node:path") as typeof import("node:path");
const { createInterface } = require("node:readline") as typeof import("node:readline");
const { parseArgs } = require("node:util") as typeof import("node:util");
const { Pool } = require("undici") as typeof import("undici");
/* eslint-enable @typescript-eslint/no-require-imports */

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "8" },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);

async function main(): Promise<void> {
  const cli = resolve(__dirname, "..", "dist", "simulator", "cli.js");
  const child = spawn(
    process.execPath,
    [cli, "--port", "0", "--task-ms", "10", "--listing-lag-ms", "0"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const line = await new Promise<string>((done) =>
    createInterface({ input: child.stdout }).once("line", done),
  );
  const ready = JSON.parse(line) as { url: string; apiToken: string; caFile: string | null };
  // The CA is not on disk without --ca-file; the bench trusts the loopback server instead.
  const pool = new Pool(ready.url, {
    connections,
    pipelining: 1,
    connect: { rejectUnauthorized: false },
  });
  const headers = { authorization: `PVEAPIToken=${ready.apiToken}` };
  const paths = [
    "/api2/json/version",
    "/api2/json/nodes/pve1/qemu/9000/status/current",
    "/api2/json/cluster/resources?type=vm",
  ];
  let done = 0;
  let errors = 0;
  const deadline = Date.now() + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (Date.now() < deadline) {
      const res = await pool.request({
        method: "GET",
        path: paths[done % paths.length] ?? "/api2/json/version",
        headers,
      });
      await res.body.text();
      if (res.statusCode === 200) done += 1;
      else errors += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections * 2 }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  child.kill("SIGTERM");
  const rate = Math.round(done / elapsed);
  process.stdout.write(
    `${JSON.stringify({ getsPerSecond: rate, requests: done, errors, seconds: Math.round(elapsed * 100) / 100, connections })}\n`,
  );
  if (rate < 2000) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
