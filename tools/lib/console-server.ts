/**
 * Starts the built console (`next start`) on a free loopback port against a given journal, the
 * way an operator runs it, and stops it with its whole process group. One starter for the
 * browser tests, the soak and the benchmark (which also starts its floor server through
 * `startServer`), so all three measure and test the same start-up.
 */
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

export interface ConsoleServer {
  url: string;
  /** The process group's leader, for measuring the server and its workers. */
  pid: number;
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

/** Answers at all (a redirect to sign-in counts): the server is listening. */
async function answers(url: string): Promise<boolean> {
  const res = await fetch(url, { redirect: "manual" });
  return res.status > 0;
}

export interface ServerOptions {
  /** Names the server in errors ("console exited with 1"). */
  name: string;
  /** The program and its arguments; it must listen on `url`. */
  command: [string, ...string[]];
  url: string;
  env?: Record<string, string>;
  /** Raised niceness (nice -n), so a benchmark's load generators are not starved by the server. */
  nice?: number;
  /** Ready when this resolves true; a rejection counts as not yet. Default: any HTTP answer. */
  ready?: (url: string) => Promise<boolean>;
  timeoutMs?: number;
}

/** Any HTTP server in its own process group, waited on until it is ready. */
export async function startServer(opts: ServerOptions): Promise<ConsoleServer> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const ready = opts.ready ?? answers;
  const [cmd, ...argv] = opts.nice && opts.nice > 0 ? ["nice", "-n", String(opts.nice), ...opts.command] : opts.command;
  let output = "";
  const child: ChildProcess = spawn(cmd!, argv, {
    cwd: root,
    detached: true, // its own process group, so stop() takes Next's workers with it
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${opts.name} exited with ${child.exitCode}:\n${output}`);
    if (await ready(opts.url).catch(() => false)) break;
    if (Date.now() > deadline) throw new Error(`${opts.name} did not answer within ${timeoutMs / 1000} s:\n${output}`);
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    url: opts.url,
    pid: child.pid!,
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
      try {
        if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone in the meantime
      }
    },
  };
}

export interface ConsoleOptions {
  journal: string;
  env?: Record<string, string>;
  host?: string;
  /** A port chosen beforehand (the benchmark names its accounts file after it); default a free one. */
  port?: number;
  nice?: number;
  ready?: (url: string) => Promise<boolean>;
  timeoutMs?: number;
}

export async function startConsole(opts: ConsoleOptions): Promise<ConsoleServer> {
  const host = opts.host ?? "127.0.0.1";
  const port = opts.port ?? (await freePort());
  return startServer({
    name: "console",
    command: [path.join(root, "node_modules/.bin/next"), "start", "-H", host, "-p", String(port)],
    url: `http://${host}:${port}`,
    env: { NEXT_TELEMETRY_DISABLED: "1", DRIFTWATCH_JOURNAL: opts.journal, ...opts.env },
    nice: opts.nice,
    ready: opts.ready,
    timeoutMs: opts.timeoutMs,
  });
}
