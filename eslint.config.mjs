import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

export default defineConfig([
  ...nextVitals,
  ...nextTypescript,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // The domain core must not depend on the UI framework (STYLE.md: layers, one direction).
      "no-restricted-imports": "off",
    },
  },
  {
    files: ["lib/journal/**", "lib/reconcile/**", "lib/exchange/**", "lib/bot/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["next", "next/*", "react", "react-dom", "@/app/*", "@/components/*"], message: "The domain core stays free of Next and React." }] },
      ],
    },
  },
  globalIgnores([".next/**", "out/**", "build/**", "next-env.d.ts", "node_modules/**", "data/**", "test-results/**", "playwright-report/**", ".bench/**"]),
]);
