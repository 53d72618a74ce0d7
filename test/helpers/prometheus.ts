/**
 * Debian's real Prometheus (and promtool), installed by `npm run setup`: a test starts its own on a
 * free loopback port with a temporary config and data folder, and stops it with its process group.
 * A missing binary fails the test with what to run; nothing here is skipped or mocked.
 */
import fs from "node:fs";
import path from "node:path";
import { freePort, startServer, type ConsoleServer } from "@/tools/lib/console-server";
import { repoRoot, tempDir } from "./journal";

export const RULES_DIR = path.join(repoRoot, "deploy/prometheus");

/** The binary's path, or an error that says how to get it. */
export function prometheusBinary(name: "prometheus" | "promtool"): string {
  const found = ["/usr/bin", "/usr/local/bin"].map((d) => path.join(d, name)).find((p) => fs.existsSync(p));
  if (!found) throw new Error(`${name} is not installed: run npm run setup (it installs Debian's prometheus package)`);
  return found;
}

export interface PrometheusAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: "pending" | "firing";
  activeAt: string;
  value: string;
}

export interface Prometheus extends ConsoleServer {
  alerts: () => Promise<PrometheusAlert[]>;
  /** The scrape targets' health, as /api/v1/targets reports it. */
  targets: () => Promise<{ labels: Record<string, string>; health: string; lastError: string }[]>;
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: T }).data;
}

/**
 * Starts Prometheus with `config` (written as JSON, which YAML reads as is) and the shipped rule
 * files copied beside it. `files` are written into the same folder first (a token file, say); the
 * config may name them by `${dir}/name` through the `dir` it is given.
 */
export async function startPrometheus(opts: { config: (dir: string) => object; files?: Record<string, string> }): Promise<Prometheus> {
  const bin = prometheusBinary("prometheus");
  const dir = tempDir("prometheus");
  for (const f of fs.readdirSync(RULES_DIR).filter((f) => f.endsWith(".rules.yml"))) fs.copyFileSync(path.join(RULES_DIR, f), path.join(dir, f));
  for (const [name, text] of Object.entries(opts.files ?? {})) fs.writeFileSync(path.join(dir, name), text, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, "prometheus.yml"), JSON.stringify(opts.config(dir), null, 2));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await startServer({
    name: "prometheus",
    command: [
      bin,
      `--config.file=${path.join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    url,
    ready: async (u) => (await fetch(`${u}/-/ready`)).ok,
  });
  return {
    ...server,
    alerts: async () => (await getJson<{ alerts: PrometheusAlert[] }>(`${url}/api/v1/alerts`)).alerts,
    targets: async () =>
      (await getJson<{ activeTargets: { labels: Record<string, string>; health: string; lastError: string }[] }>(`${url}/api/v1/targets`)).activeTargets,
  };
}
