import path from "node:path";
import { defineConfig } from "vitest/config";

const root = import.meta.dirname;
// "server-only" throws outside Next's server bundles; under test, server modules are just modules.
const alias = { "@": root, "server-only": path.join(root, "test/helpers/server-only-stub.ts") };

export default defineConfig({
  resolve: { alias },
  test: {
    // Vitest's default is one worker fewer than the CPUs: one on a 2-core machine. Most of these
    // tests wait on child processes, disks and SQLite rather than the CPU; two workers took the
    // suite from about 134 s to 86-97 s here, with the same results.
    maxWorkers: 2,
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
