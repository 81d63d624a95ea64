/* eslint-disable @typescript-eslint/no-require-imports */
// Lets `node --experimental-transform-types` run the benchmark straight from the TypeScript
// sources: relative `.js` specifiers resolve to the `.ts` file next to them (as tsc does), and
// the repository's `.ts` files load as ES modules although package.json says CommonJS.
// Preloaded with `--require`, so it is CommonJS itself.
const { registerHooks } = require("node:module") as typeof import("node:module");
const { existsSync } = require("node:fs") as typeof import("node:fs");
const { fileURLToPath } = require("node:url") as typeof import("node:url");

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith(".") && specifier.endsWith(".js") && context.parentURL) {
      const candidate = new URL(specifier.replace(/\.js$/, ".ts"), context.parentURL);
      if (existsSync(fileURLToPath(candidate))) return next(candidate.href, context);
    }
    return next(specifier, context);
  },
  load(url, context, next) {
    const result = next(url, context);
    if (url.startsWith("file:") && url.endsWith(".ts") && !url.includes("/node_modules/")) {
      return { ...result, format: "module-typescript" };
    }
    return result;
  },
});
