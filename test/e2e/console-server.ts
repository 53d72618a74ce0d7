/**
 * Starts the built console (`next start`) on a free loopback port against a given journal, the
 * way an operator runs it, and stops it with its whole process group.
 */
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

export interface ConsoleServer {
  url: string;
  /** Everything the server printed, for assertions on its start-up message. */
  output: () => string;
  stop: () => Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startConsole(opts: { journal: string; env?: Record<string, string>; host?: string }): Promise<ConsoleServer> {
  const host = opts.host ?? "127.0.0.1";
  const port = await freePort();
  let output = "";
  const child: ChildProcess = spawn(path.join(root, "node_modules/.bin/next"), ["start", "-H", host, "-p", String(port)], {
    cwd: root,
    detached: true, // its own process group, so stop() takes Next's workers with it
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", DRIFTWATCH_JOURNAL: opts.journal, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const url = `http://${host}:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`console exited with ${child.exitCode}:\n${output}`);
    try {
      const res = await fetch(url, { redirect: "manual" });
      if (res.status > 0) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`console did not answer within 30 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.pid === undefined) return;
      const exited = new Promise((r) => child.once("exit", r));
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        return;
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    },
  };
}
