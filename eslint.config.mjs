import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

// The layers (../shared/STYLE.md, the house style: one direction), checked on the resolved file, so "@/…" and "../../…"
// imports are caught alike. The product is app/, components/, lib/ and the two root modules Next
// loads (and its config); tooling is tools/ and scripts/; tests are test/.
const PRODUCT = ["./app", "./components", "./lib", "./proxy.ts", "./instrumentation.ts", "./next.config.ts"];
// The pure core: plain TypeScript a bot author reads first, testable without a server or a database.
const PURE_CORE = ["lib/journal", "lib/reconcile", "lib/breaker", "lib/charts"];
// Held to the same rules: the pure helpers the screens share with the browser (a screen's URL state,
// text for display), so a database or Next import cannot ride into a client bundle through them.
const PURE = [...PURE_CORE, "lib/url-state", "lib/text"];

export default defineConfig([
  ...nextVitals,
  ...nextTypescript,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-imports": "off",
      "import/no-restricted-paths": [
        "error",
        {
          basePath: import.meta.dirname,
          zones: [
            {
              target: PRODUCT,
              from: ["./tools", "./scripts", "./test"],
              message: "The product does not import tooling or tests; move what both need into lib/.",
            },
            {
              target: "./lib",
              from: ["./app", "./components"],
              message: "lib/ sits below the routes and components; pass what it needs as arguments.",
            },
            {
              target: "./app",
              from: "./lib/db",
              message: "Routes read through lib/queries (readScreen and the screen's loader) or lib/http (journalJson); only those reach lib/db.",
            },
            {
              target: PURE.map((dir) => `./${dir}`),
              from: "./lib/db",
              message: "The pure core takes plain values; the caller (lib/queries, lib/actions) reads the database.",
            },
          ],
        },
      ],
    },
  },
  {
    files: PURE.map((dir) => `${dir}/**`),
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["next", "next/*", "react", "react/*", "react-dom", "react-dom/*", "better-sqlite3", "drizzle-orm", "drizzle-orm/*"],
              message: "The pure core stays free of Next, React and the database driver; take plain values instead.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["lib/exchange/**", "lib/bot/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["next", "next/*", "react", "react/*", "react-dom", "react-dom/*"], message: "The bot side stays free of Next and React." }] },
      ],
    },
  },
  {
    // Type-aware: a promise nobody awaits loses its error; one passed where a void callback is
    // expected (an event handler, a forEach) runs unobserved.
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
    },
  },
  globalIgnores([".next/**", "out/**", "build/**", "next-env.d.ts", "node_modules/**", "data/**", "test-results/**", "playwright-report/**", ".bench/**"]),
]);
