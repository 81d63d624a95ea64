import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/",
      ".tools/",
      ".e2e/",
      ".demo/",
      "node_modules/",
      "tools/",
      "examples/**/node_modules/",
      "coverage/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    // The plain-JavaScript programs (examples, the release-capture program) are CommonJS, as
    // Pulumi runs them.
    files: ["examples/**/*.js", "test/**/fixtures/**/*.js"],
    languageOptions: {
      sourceType: "commonjs",
      globals: {
        require: "readonly",
        exports: "writable",
        module: "writable",
        process: "readonly",
        console: "readonly",
        fetch: "readonly",
        URLSearchParams: "readonly",
      },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // Layering (STYLE.md §3.2): only the HTTP client touches undici; operations and the pure
    // layers never import the Pulumi SDK; the simulator never imports provider internals.
    files: [
      "provider/vm/operations/**",
      "provider/vm/steps/**",
      "provider/vm/seed/**",
      "provider/vm/state/**",
      "provider/pve/lock.ts",
      "provider/pve/retry.ts",
    ],
    rules: {
      "no-restricted-imports": ["error", { paths: ["undici", "@pulumi/pulumi"] }],
    },
  },
  {
    files: ["simulator/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: ["../provider/*", "../../provider/*"] }],
    },
  },
);
