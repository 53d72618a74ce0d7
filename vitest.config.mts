import path from "node:path";
import { defineConfig } from "vitest/config";

const root = import.meta.dirname;
// "server-only" throws outside Next's server bundles; under test, server modules are just modules.
const alias = { "@": root, "server-only": path.join(root, "test/helpers/server-only-stub.ts") };

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      // Property tests run hundreds of cases; on a loaded 2-core machine one can take several seconds.
      { resolve: { alias }, test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node", testTimeout: 30_000 } },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          environment: "node",
          // Real files and child processes: give slow disks and process start-up room.
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
