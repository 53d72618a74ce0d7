/**
 * A real Alertmanager (Debian's prometheus-alertmanager) for a test: its own config, data folder
 * and loopback port, clustering off, routing every alert to a webhook receiver this process serves
 * on loopback, with intervals short enough that a repeat notification comes within a second or so.
 */
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import { freePort, startServer, type ConsoleServer } from "@/tools/lib/console-server";
import { repoRoot, tempDir } from "./journal";

/** One notification the webhook received: the alerts' labels and status, as Alertmanager sent them. */
export interface Delivery {
  /** The receiver Alertmanager routed it to (with the shipped routes: team-webhook, on-call-page, team-slack). */
  receiver?: string;
  groupLabels?: Record<string, string>;
  status: string;
  alerts: { status: string; labels: Record<string, string>; annotations?: Record<string, string> }[];
}

export interface ApiAlert {
  labels: Record<string, string>;
  status: { state: "active" | "suppressed" | "unprocessed"; silencedBy: string[] };
}

export interface ApiSilence {
  id: string;
  status: { state: "active" | "pending" | "expired" };
  matchers: { name: string; value: string; isRegex: boolean; isEqual?: boolean }[];
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
}

export interface TestAlertmanager {
  url: string;
  deliveries: Delivery[];
  /** Deliveries whose alerts include one with these labels. */
  deliveriesOf: (labels: Record<string, string>) => Delivery[];
  postAlert: (labels: Record<string, string>) => Promise<void>;
  alerts: () => Promise<ApiAlert[]>;
  silences: () => Promise<ApiSilence[]>;
  /** Stops the process, keeping its data folder and port for `up()`: Alertmanager down for a while. */
  down: () => Promise<void>;
  up: () => Promise<void>;
  stop: () => Promise<void>;
}

const BINARY = "prometheus-alertmanager";

async function json<T>(res: Response): Promise<T> {
  if (!res.ok) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/**
 * The shipped deploy/alertmanager/alertmanager.yml's routes as they are, with its intervals cut to
 * test length and each of its receivers a webhook to `hook` (the delivery names its receiver).
 */
function shippedRoutes(hook: string, repeatInterval: string): string {
  const shipped = fs.readFileSync(path.join(repoRoot, "deploy/alertmanager/alertmanager.yml"), "utf8");
  const cut = shipped.indexOf("\nreceivers:");
  if (cut < 0) throw new Error("deploy/alertmanager/alertmanager.yml: no receivers section");
  const routes = shipped
    .slice(0, cut)
    .replace(/^(\s*)group_wait: .*$/m, "$1group_wait: 100ms")
    .replace(/^(\s*)group_interval: .*$/m, "$1group_interval: 500ms")
    .replace(/^(\s*)repeat_interval: .*$/m, `$1repeat_interval: ${repeatInterval}`);
  const names = [...shipped.slice(cut).matchAll(/^ {2}- name: (\S+)$/gm)].map((m) => m[1]!);
  return [
    routes,
    "receivers:",
    ...names.flatMap((name) => [`  - name: ${name}`, "    webhook_configs:", `      - url: ${hook}`, "        send_resolved: false"]),
    "",
  ].join("\n");
}

export async function startAlertmanager(opts: { repeatInterval?: string; routes?: "one-webhook" | "shipped" } = {}): Promise<TestAlertmanager> {
  const dir = tempDir("alertmanager");
  const deliveries: Delivery[] = [];
  const hook = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      try {
        deliveries.push(JSON.parse(body) as Delivery);
      } catch {
        deliveries.push({ status: `unparsable: ${body.slice(0, 200)}`, alerts: [] });
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
  const hookPort = (hook.address() as net.AddressInfo).port;
  const config = path.join(dir, "alertmanager.yml");
  fs.writeFileSync(
    config,
    opts.routes === "shipped"
      ? shippedRoutes(`http://127.0.0.1:${hookPort}/hook`, opts.repeatInterval ?? "1s")
      : [
          "route:",
          "  receiver: test-webhook",
          "  group_by: [alertname, bot, symbol]",
          "  group_wait: 100ms",
          "  group_interval: 500ms",
          `  repeat_interval: ${opts.repeatInterval ?? "1s"}`,
          "receivers:",
          "  - name: test-webhook",
          "    webhook_configs:",
          `      - url: http://127.0.0.1:${hookPort}/hook`,
          "        send_resolved: false",
          "",
        ].join("\n"),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const start = () =>
    startServer({
      name: "alertmanager",
      command: [
        BINARY,
        `--config.file=${config}`,
        `--storage.path=${path.join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--cluster.listen-address=",
        "--log.level=warn",
      ],
      url,
      ready: async (u) => (await fetch(`${u}/-/ready`)).ok,
    });
  let server: ConsoleServer;
  try {
    server = await start();
  } catch (error) {
    hook.close();
    throw error;
  }
  const matches = (have: Record<string, string>, want: Record<string, string>) => Object.entries(want).every(([k, v]) => have[k] === v);
  return {
    url,
    deliveries,
    deliveriesOf: (labels) => deliveries.filter((d) => d.alerts.some((a) => matches(a.labels, labels))),
    postAlert: async (labels) => {
      const endsAt = new Date(Date.now() + 3600_000).toISOString();
      const res = await fetch(`${url}/api/v2/alerts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify([{ labels, annotations: { summary: `test alert ${JSON.stringify(labels)}` }, endsAt }]),
      });
      if (!res.ok) throw new Error(`posting an alert: ${res.status} ${await res.text()}`);
    },
    alerts: async () => json<ApiAlert[]>(await fetch(`${url}/api/v2/alerts`)),
    silences: async () => json<ApiSilence[]>(await fetch(`${url}/api/v2/silences`)),
    down: async () => {
      await server.stop();
    },
    up: async () => {
      server = await start();
    },
    stop: async () => {
      await server.stop();
      await new Promise<void>((resolve) => hook.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` returns a value (not undefined/false), or fails naming what it waited for. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
