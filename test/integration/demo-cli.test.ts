/**
 * `npm run demo` given options it does not know, or a port that is none: one line that says what is
 * wrong, with the usage, and exit 2, before anything is built or started; never Node's stack trace.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const demo = (...args: string[]) =>
  spawnSync(process.execPath, [path.resolve("scripts/demo.mjs"), ...args], {
    encoding: "utf8",
    timeout: 20_000,
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("DRIFTWATCH_DEMO_"))) as NodeJS.ProcessEnv,
  });

describe("the demo's command line", () => {
  it("names an unknown option in one line, with the usage, and stops before building anything", () => {
    const r = demo("--prot", "3917");
    expect(r.status).toBe(2);
    expect(r.stderr.split("\n")[0]).toMatch(/^demo: Unknown option '--prot'/);
    expect(r.stderr).toContain("usage: npm run demo [-- --port P]");
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).not.toContain("building");
  });

  it("takes its port from --port, and refuses one that is no port number", () => {
    for (const bad of ["abc", "0", "70000"]) {
      const r = demo("--port", bad);
      expect(r.status, bad).toBe(2);
      expect(r.stderr.trim()).toBe(`demo: --port must be a port number (1 to 65535), got ${bad}`);
    }
  });
});
