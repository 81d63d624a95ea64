/**
 * Benchmark: time and allocation to build a typical NoCloud seed (validate → render → ISO →
 * name). Runs straight from the TypeScript sources, no build step:
 *
 *   source scripts/bootstrap.sh && node --expose-gc bench/seed-build.ts [iterations]
 *
 * The package is CommonJS, so this file is too (require, no top-level await). The hooks map the
 * sources' `./x.js` specifiers (nodenext style) to `./x.ts` and load provider/ as ES modules,
 * which Node's type stripping then runs; require(esm) brings them in.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { registerHooks } = require("node:module") as typeof import("node:module");

registerHooks({
  load(url, context, nextLoad) {
    if (url.endsWith(".ts") && url.includes("/provider/")) {
      return nextLoad(url, { ...context, format: "module-typescript" });
    }
    return nextLoad(url, context);
  },
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (specifier.startsWith(".") && specifier.endsWith(".js")) {
        return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
      }
      throw error;
    }
  },
});

/* eslint-disable @typescript-eslint/no-require-imports */
const { buildSeed } =
  require("../provider/vm/seed/build-seed.js") as typeof import("../provider/vm/seed/build-seed.js");
const { validateCloudInit } =
  require("../provider/vm/seed/seed-inputs.js") as typeof import("../provider/vm/seed/seed-inputs.js");
/* eslint-enable @typescript-eslint/no-require-imports */

const KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ops@example";
const TYPICAL = {
  hostname: "web-1",
  users: [
    {
      name: "ops",
      sshAuthorizedKeys: [KEY, KEY],
      sudo: true,
      groups: ["adm", "sudo"],
      shell: "/bin/bash",
    },
  ],
  packages: ["nginx", "curl", "jq"],
  runcmd: ["systemctl enable --now nginx", ["sh", "-c", "echo ready > /run/ready"]],
  writeFiles: [
    {
      path: "/etc/nginx/conf.d/app.conf",
      content: "server {\n  listen 80;\n}\n".repeat(20),
      permissions: "0644",
    },
  ],
  network: [
    {
      mac: "52:54:00:12:34:56",
      addresses: ["192.0.2.10/24"],
      gateway4: "192.0.2.1",
      nameservers: { addresses: ["192.0.2.53"] },
    },
  ],
};

function once(): number {
  const parsed = validateCloudInit(TYPICAL);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.failures));
  return buildSeed(parsed.value, { instanceId: "pp-vm1", hostname: "vm1", owner: "vm1" }).bytes
    .length;
}

const iterations = Number(process.argv[2] ?? 500);
const gc = (globalThis as { gc?: () => void }).gc;
for (let i = 0; i < 50; i++) once(); // warm up the JIT

gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const extBefore = process.memoryUsage().arrayBuffers;
const allocStart = process.resourceUsage().maxRSS;
const start = process.hrtime.bigint();
let size = 0;
for (let i = 0; i < iterations; i++) size = once();
const elapsedNs = Number(process.hrtime.bigint() - start);
const heapAfter = process.memoryUsage().heapUsed;
const extAfter = process.memoryUsage().arrayBuffers;

// Allocation of one build: heap growth across a single build with GC before it.
gc?.();
const oneBefore = process.memoryUsage();
once();
const oneAfter = process.memoryUsage();

console.log(`seed ISO size:          ${size} bytes`);
console.log(
  `time per build:         ${(elapsedNs / iterations / 1e6).toFixed(3)} ms (${iterations} builds)`,
);
console.log(
  `JS heap per build:      ${((oneAfter.heapUsed - oneBefore.heapUsed) / 1024).toFixed(1)} KiB (one build after gc)`,
);
console.log(
  `ArrayBuffers per build: ${((oneAfter.arrayBuffers - oneBefore.arrayBuffers) / 1024).toFixed(1)} KiB (the image itself is ${(size / 1024).toFixed(0)} KiB)`,
);
console.log(
  `heap delta over run:    ${((heapAfter - heapBefore) / 1024).toFixed(1)} KiB, ArrayBuffers ${((extAfter - extBefore) / 1024).toFixed(1)} KiB (garbage not yet collected)`,
);
console.log(
  `max RSS:                ${(process.resourceUsage().maxRSS / 1024).toFixed(1)} MiB (was ${(allocStart / 1024).toFixed(1)} MiB)`,
);
if (gc === undefined) console.log("(run with --expose-gc for the per-build figures to be exact)");
