/* eslint-disable @typescript-eslint/no-require-imports */
// Lets `node --experimental-transform-types` run a script straight from the repository's
// TypeScript sources: a relative specifier without an extension resolves to the `.ts` file (or
// folder's `index.ts`) as tsc resolves it, and those files load as ES modules although
// package.json says CommonJS. Preloaded with `--require`, so it is CommonJS itself.
const { registerHooks } = require("node:module") as typeof import("node:module");
const { existsSync } = require("node:fs") as typeof import("node:fs");
const { fileURLToPath } = require("node:url") as typeof import("node:url");

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith(".") && context.parentURL?.endsWith(".ts")) {
      const bare = specifier.replace(/\.js$/, "");
      for (const candidate of [`${bare}.ts`, `${bare}/index.ts`]) {
        const url = new URL(candidate, context.parentURL);
        if (existsSync(fileURLToPath(url))) return next(url.href, context);
      }
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
