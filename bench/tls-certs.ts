/**
 * Benchmark: what the simulator's TLS costs at start-up: loading the compiled certificate
 * module, then generating the ECDSA CA and the server certificate (first call, then the mean of
 * many). These are the figures a certificate library would have to match (docs/design.md).
 *
 *   source scripts/bootstrap.sh && npm run bench:tls [iterations]
 */
/* eslint-disable @typescript-eslint/no-require-imports --
   The package is CommonJS, so Node's type stripping runs this file as CJS: `import` statements
   would not load, `require` does. */
const loadStart = process.hrtime.bigint();
const { generateTls } =
  require("../dist/simulator/tls/certs.js") as typeof import("../simulator/tls/certs.js");
/* eslint-enable @typescript-eslint/no-require-imports */
const loaded = process.hrtime.bigint();

const ms = (nanoseconds: bigint, times = 1): string =>
  (Number(nanoseconds) / 1e6 / times).toFixed(2);
const iterations = Number(process.argv[2] ?? 200);

const first = process.hrtime.bigint();
generateTls("127.0.0.1");
const warm = process.hrtime.bigint();
for (let i = 0; i < iterations; i++) generateTls("127.0.0.1");
const done = process.hrtime.bigint();

console.log(`load simulator/tls/certs: ${ms(loaded - loadStart)} ms`);
console.log(`CA + server certificate, first: ${ms(warm - first)} ms`);
console.log(`CA + server certificate, mean of ${iterations}: ${ms(done - warm, iterations)} ms`);
