import fs from "node:fs";
import { defineConfig, devices } from "@playwright/test";

// Browsers are never downloaded here: tests drive Debian's Chromium (scripts/setup.sh installs it).
// The wrapper /usr/bin/chromium prints noise; the binary behind it is used when present.
const chromium = process.env.DRIFTWATCH_CHROMIUM ?? ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((p) => fs.existsSync(p));

export default defineConfig({
  testDir: "test/e2e",
  // Specs only; the helpers they share live in test/helpers/e2e.
  testMatch: "**/*.spec.ts",
  outputDir: "test-results/e2e-artifacts",
  fullyParallel: false,
  workers: 2,
  forbidOnly: true,
  retries: 0,
  timeout: 60_000,
  reporter: [["list"], ["json", { outputFile: "test-results/e2e.json" }]],
  use: {
    ...devices["Desktop Chrome"],
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
