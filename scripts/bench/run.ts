/**
 * `npm run bench`: the performance targets of docs/performance.md, measured on the reference
 * journal and printed as a table (target, measured, ratio, pass or miss). Figures, not timed tests:
 * the exit code is 0 even on a miss, unless --strict is given; a broken run (a server that does not
 * start, a request that fails) exits 1.
 *
 * Steps: a production build if the sources are newer; the 20-day and 1-day reference journals in
 * .bench/ (written once, again when the generator or the migrations change or the data is older
 * than 12 h); then, on copies of them, the console (`next start`), the bare node:http floor server,
 * pollers, Chromium, and a bot process writing beside it all.
 */
import { fork, spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import zlib from "node:zlib";
import Database from "better-sqlite3";
import { chromium } from "playwright-core";
import { buildState } from "../../tools/lib/build-state.mjs";
import { get, poll, quantile, sleep, timeRequests, type PollResult } from "../../tools/bench/http-load";
import { freePort, startConsole, startServer, type ConsoleServer } from "../../tools/lib/console-server";
import { createAccount } from "../../lib/auth/accounts";
import { sessionPayload, signSession, SESSION_COOKIE } from "../../lib/auth/token";
import { openAccountsDb } from "../../lib/db/accounts-file";
import { benchDir, referenceJournal, root } from "../../tools/bench/reference";
import { fleetJournals } from "./fleet";
import { liveBotWrites, liveRows, treeCpuMs } from "./live-rows";
import { pruneRows } from "./prune";

const { values: args } = parseArgs({
  options: {
    strict: { type: "boolean", default: false },
    days: { type: "string", default: "20" },
    seconds: { type: "string", default: "20" },
    // The console runs at this CPU niceness, as the README recommends beside a live bot (0: none).
    nice: { type: "string", default: "10" },
    // The pollers of the bot-write row, which stand for browsers on other machines, run at this
    // niceness in a process of their own (0: none).
    "pollers-nice": { type: "string", default: "19" },
    // Simulated days of load written after the prune row (scripts/bench/prune.ts).
    "prune-days": { type: "string", default: "7" },
    // The prune row's bot phase: stop the prune after this many seconds (0: let it finish) and finish
    // it with no bot (a stopped prune resumes). The ratio is then over those seconds: a cheap re-run.
    "prune-for": { type: "string", default: "0" },
    // "flood": only the action-flood row (a few minutes less than the whole bench; --days 1 for a quick one).
    // "live": only the incident hour and the /api/live rows (issue 14).
    // "prune": only the retention rows (scripts/bench/prune.ts).
    // "fleet": only the several-journals row (issue 15: 10 journals of 10 bots against one journal of the same 100).
    // "browser": only the Chromium rows (first paint, JavaScript, drift to screen).
    // "live-bot": only the bot's write p99 with --viewers open overviews against none.
    // "incident": only the incident hour, as the export (JSON) and as the page a reviewer opens.
    only: { type: "string" },
    // Rounds of the live bot-write row: each a 15 s window without streams and one with them, in alternating order.
    rounds: { type: "string", default: "6" },
    // Open overviews (SSE streams from a load process) for the CPU and bot-write rows of /api/live.
    viewers: { type: "string", default: "100" },
    // The held-streams row: this many streams for this long.
    "hold-streams": { type: "string", default: "1000" },
    "hold-seconds": { type: "string", default: "60" },
  },
});
const ONLY = ["flood", "live", "prune", "browser", "live-bot", "fleet", "incident"];
if (args.only !== undefined && !ONLY.includes(args.only))
  throw new Error(`--only takes ${ONLY.map((o) => `"${o}"`).join(", ")}, not ${JSON.stringify(args.only)}`);
const DAYS = Number(args.days);
const PHASE_MS = Number(args.seconds) * 1000;
const NICE = Number(args.nice);
const POLLERS_NICE = Number(args["pollers-nice"]);

// ---------------------------------------------------------------------------------------------------
// Small tools

const say = (line: string) => console.log(`bench: ${line}`);

/** Resident memory of a process and its descendants, in MB, from /proc. */
function treeRssMb(pid: number): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(fields[1]);
      const p = Number(entry);
      rss.set(p, (Number(fields[21]) * 4096) / 1024 / 1024);
      children.set(ppid, [...(children.get(ppid) ?? []), p]);
    } catch {
      // the process ended while we looked
    }
  }
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    total += rss.get(p) ?? 0;
    stack.push(...(children.get(p) ?? []));
  }
  return total;
}

// ---------------------------------------------------------------------------------------------------
// The console and the floor server

type Server = ConsoleServer;

/** Fixed, so the flood row can mint a viewer's session cookie as sign-in would. */
const BENCH_SESSION_SECRET = "bench-session-secret-of-more-than-32-characters";
const accountsFileFor = (port: number | string) => path.join(benchDir, `accounts-${port}.sqlite`);

async function startBenchConsole(journal: string): Promise<Server> {
  const port = await freePort();
  return startConsole({
    journal,
    port,
    nice: NICE,
    env: { NODE_ENV: "production", DRIFTWATCH_ACCOUNTS_DB: accountsFileFor(port), DRIFTWATCH_SESSION_SECRET: BENCH_SESSION_SECRET },
    ready: async (url) => (await get(`${url}/api/overview`)).status === 200,
    timeoutMs: 60_000,
  });
}

async function startFloor(journal: string): Promise<Server> {
  const port = await freePort();
  // At the console's niceness: the ratio compares two servers, not two CPU priorities.
  return startServer({
    name: "floor server",
    command: [process.execPath, path.join(root, "scripts/bench/floor-server.mjs"), journal, String(port)],
    url: `http://127.0.0.1:${port}`,
    nice: NICE,
    ready: async (url) => (await get(`${url}/overview`)).status === 200,
    timeoutMs: 60_000,
  });
}

// ---------------------------------------------------------------------------------------------------
// The reference journals

/**
 * A working copy, so one run's writes (the drift probes, the bot) do not pile up in the reference.
 * On disk before anything is timed: left to the kernel, the copy's 1.8 GB were written back during
 * the first rows, and their requests waited on that I/O (37 % iowait in top), not on the console.
 */
function workingCopy(file: string): string {
  const copy = file.replace(/\.sqlite$/, ".run.sqlite");
  for (const f of [copy, `${copy}-wal`, `${copy}-shm`]) fs.rmSync(f, { force: true });
  fs.copyFileSync(file, copy);
  const fd = fs.openSync(copy, "r+");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return copy;
}

// ---------------------------------------------------------------------------------------------------
// The table

interface Row {
  what: string;
  target: string;
  measured: string;
  ratio: string;
  pass: boolean;
}
const rows: Row[] = [];
const figures: Record<string, unknown> = {};
const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 1)} ms`;

function row(what: string, target: string, measured: string, pass: boolean, ratio = "") {
  rows.push({ what, target, measured, ratio, pass });
  say(`${pass ? "pass" : "MISS"}  ${what}: ${measured}${ratio ? ` (${ratio})` : ""}, target ${target}`);
}

function printTable() {
  const head = ["what", "target", "measured", "ratio", "result"];
  const body = rows.map((r) => [r.what, r.target, r.measured, r.ratio || "-", r.pass ? "pass" : "MISS"]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log(`\n${line(head)}\n| ${widths.map((w) => "-".repeat(w)).join(" | ")} |\n${body.map(line).join("\n")}`);
}

// ---------------------------------------------------------------------------------------------------
// The run

async function main() {
  const started = Date.now();
  fs.mkdirSync(benchDir, { recursive: true });
  if (!buildState(root).current) {
    say("building the console (the production build is missing or older than the sources)");
    const b = spawnSync(path.join(root, "node_modules/.bin/next"), ["build"], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    if (b.status !== 0) throw new Error("next build failed");
  }
  if (args.only === "flood") return oneConsole(started, floodRow);
  if (args.only === "live") return liveOnly(started);
  if (args.only === "prune") return pruneOnly(started);
  if (args.only === "fleet") return fleetOnly(started);
  if (args.only === "browser") return oneConsole(started, (server, run) => browserRows(server, run));
  if (args.only === "live-bot") return oneConsole(started, (server, run) => liveBotWrites(liveBench(server, run)));
  if (args.only === "incident") return oneConsole(started, (server, run) => incidentRows(server, run));
  const big = referenceJournal(DAYS);
  const small = referenceJournal(1);
  figures.journals = { [`${DAYS}d`]: big.report, "1d": small.report };
  say(`copying the journals (${(fs.statSync(big.file).size / 1e9).toFixed(2)} GB)`);
  const bigRun = workingCopy(big.file);
  const smallRun = workingCopy(small.file);

  const servers: Server[] = [];
  const stopAll = () => Promise.all(servers.map((s) => s.stop()));
  process.on("SIGINT", () => void stopAll().then(() => process.exit(130)));
  try {
    // --- overview under 20 pollers: 20 days, 1 day, and the floor ------------------------------------
    say("starting the console on both journals and the floor server");
    const big20 = await startBenchConsole(bigRun);
    servers.push(big20);
    const small1 = await startBenchConsole(smallRun);
    servers.push(small1);
    const floor = await startFloor(bigRun);
    servers.push(floor);

    // Warm both consoles' code paths and page caches before measuring.
    for (const u of [`${big20.url}/api/overview`, `${small1.url}/api/overview`, `${floor.url}/overview`]) await poll([u], 4, 50, 3_000);

    say(`overview: 20 pollers every 500 ms for ${PHASE_MS / 1000} s, on each server in turn`);
    const bigPoll = await poll([`${big20.url}/api/overview`], 20, 500, PHASE_MS);
    const smallPoll = await poll([`${small1.url}/api/overview`], 20, 500, PHASE_MS);
    const floorPoll = await poll([`${floor.url}/overview`], 20, 500, PHASE_MS);
    const p = (r: PollResult, q: number) => quantile(r.latencies, q);
    figures.overview = {
      big: { p50: p(bigPoll, 0.5), p99: p(bigPoll, 0.99), requests: bigPoll.requests, errors: bigPoll.errors },
      small: { p50: p(smallPoll, 0.5), p99: p(smallPoll, 0.99), requests: smallPoll.requests, errors: smallPoll.errors },
      floor: { p50: p(floorPoll, 0.5), p99: p(floorPoll, 0.99), requests: floorPoll.requests, errors: floorPoll.errors },
    };
    row(
      `overview JSON, 20 pollers, ${DAYS}-day journal`,
      "p50 ≤ 5 ms, p99 ≤ 20 ms",
      `p50 ${ms(p(bigPoll, 0.5))}, p99 ${ms(p(bigPoll, 0.99))}, ${bigPoll.requests} requests, ${bigPoll.errors} errors`,
      p(bigPoll, 0.5) <= 5 && p(bigPoll, 0.99) <= 20 && bigPoll.errors === 0,
    );
    const growth = p(bigPoll, 0.5) / p(smallPoll, 0.5);
    row(
      `overview, ${DAYS}-day against 1-day journal`,
      "p50 ratio ≤ 1.5",
      `p50 ${ms(p(bigPoll, 0.5))} against ${ms(p(smallPoll, 0.5))}; p99 ${ms(p(bigPoll, 0.99))} against ${ms(p(smallPoll, 0.99))}`,
      growth <= 1.5,
      `×${growth.toFixed(2)}`,
    );
    const overFloor = p(bigPoll, 0.5) / p(floorPoll, 0.5);
    row(
      "overview route against the node:http floor",
      "p50 ratio ≤ 2",
      `p50 ${ms(p(bigPoll, 0.5))} against ${ms(p(floorPoll, 0.5))}`,
      overFloor <= 2,
      `×${overFloor.toFixed(2)}`,
    );
    await small1.stop();
    await floor.stop();

    // --- the symbol chart, the doubtful list, the incident hour ---------------------------------------
    const ref = new Database(bigRun, { readonly: true });
    ref.pragma("busy_timeout = 5000");
    // The symbol with the most drift episodes (every episode is acknowledged once).
    const busiest = ref
      .prepare(`SELECT bot_id AS botId, symbol, count(*) AS n FROM drift_acknowledgements GROUP BY bot_id, symbol ORDER BY n DESC LIMIT 1`)
      .get() as { botId: string; symbol: string; n: number };
    const bounds = ref.prepare(`SELECT min(at) AS first, max(at) AS last FROM reconciliations WHERE bot_id = ?`).get(busiest.botId) as {
      first: string;
      last: string;
    };
    const chartBase = `${big20.url}/api/bots/${encodeURIComponent(busiest.botId)}/symbols/${encodeURIComponent(busiest.symbol)}/chart`;
    const windows = [
      {
        label: "24 h",
        query: `range=custom&from=${encodeURIComponent(new Date(Date.parse(bounds.last) - 86_400_000).toISOString())}&to=${encodeURIComponent(bounds.last)}`,
        target: 50,
      },
      { label: `${DAYS} days`, query: `range=custom&from=${encodeURIComponent(bounds.first)}&to=${encodeURIComponent(bounds.last)}`, target: 200 },
    ];
    for (const w of windows) {
      const t = await timeRequests(`${chartBase}?${w.query}`, 15);
      const chart = JSON.parse(t.last).data as {
        points: unknown[];
        episodes: { from: number; to: number }[];
        window: { from: string; to: string };
        samples: number;
      };
      const missing = missingEpisodes(ref, busiest.botId, busiest.symbol, chart.window, chart.episodes);
      const p50 = quantile(t.latencies, 0.5);
      const p95 = quantile(t.latencies, 0.95);
      figures[`chart ${w.label}`] = {
        p50,
        p95,
        points: chart.points.length,
        samples: chart.samples,
        episodes: chart.episodes.length,
        missing: missing.missing,
        drifts: missing.total,
      };
      row(
        `symbol chart, ${w.label} (${busiest.botId} ${busiest.symbol}, ${chart.samples.toLocaleString("en")} cycles)`,
        `≤ 2,000 points, ≤ ${w.target} ms, every drift shown`,
        `${chart.points.length} points, p50 ${ms(p50)}, p95 ${ms(p95)}; ${missing.total - missing.missing} of ${missing.total} drifts shown in ${chart.episodes.length} episodes`,
        chart.points.length <= 2000 && p95 <= w.target && missing.missing === 0 && t.errors === 0,
      );
    }

    const doubtful = await timeRequests(`${big20.url}/api/doubtful`, 30);
    const dTotal = (JSON.parse(doubtful.last).data as { total: number }).total;
    figures.doubtful = { p50: quantile(doubtful.latencies, 0.5), p95: quantile(doubtful.latencies, 0.95), total: dTotal };
    row(
      "doubtful orders list",
      "≤ 10 ms",
      `p50 ${ms(quantile(doubtful.latencies, 0.5))}, p95 ${ms(quantile(doubtful.latencies, 0.95))} (${dTotal} doubtful of ${Number(big.report.orders).toLocaleString("en")} orders)`,
      quantile(doubtful.latencies, 0.95) <= 10 && doubtful.errors === 0,
    );

    // Prometheus's scrape, as one Prometheus every 15 s would make it: one request at a time.
    const scrape = await timeRequests(`${big20.url}/api/metrics`, 30);
    const series = scrape.last.split("\n").filter((l) => l.startsWith("driftwatch_")).length;
    figures.metrics = { p50: quantile(scrape.latencies, 0.5), p95: quantile(scrape.latencies, 0.95), series, bytes: Buffer.byteLength(scrape.last) };
    row(
      "Prometheus scrape (GET /api/metrics)",
      "≤ 20 ms at p95 (one scrape every 15 s)",
      `p50 ${ms(quantile(scrape.latencies, 0.5))}, p95 ${ms(quantile(scrape.latencies, 0.95))} (${series} series, ${(Buffer.byteLength(scrape.last) / 1024).toFixed(1)} KB)`,
      quantile(scrape.latencies, 0.95) <= 20 && scrape.errors === 0 && scrape.last.includes('driftwatch_journal_readable{reason=""} 1'),
    );

    const hour = await incidentHourRow(big20, bounds.last);
    await incidentPageRow(big20, hour);
    // Not targets either: the list of every incident of the 20 days, and the newest one told as a story.
    const list = await timeRequests(`${big20.url}/incidents`, 15);
    const listed = { p50: quantile(list.latencies, 0.5), p95: quantile(list.latencies, 0.95), bytes: Buffer.byteLength(list.last) };
    figures.incidentList = listed;
    say(`figure: the list of incidents: p50 ${ms(listed.p50)}, p95 ${ms(listed.p95)}, ${(listed.bytes / 1024).toFixed(0)} KB`);
    const newest = ref.prepare(`SELECT id FROM breaker_events WHERE kind = 'trip' ORDER BY at DESC LIMIT 1`).pluck().get() as number | undefined;
    if (newest !== undefined) {
      const story = await timeRequests(`${big20.url}/incidents/${newest}`, 15);
      const told = { p50: quantile(story.latencies, 0.5), p95: quantile(story.latencies, 0.95), bytes: Buffer.byteLength(story.last) };
      figures.incidentStory = told;
      say(`figure: the newest incident's story: p50 ${ms(told.p50)}, p95 ${ms(told.p95)}, ${(told.bytes / 1024).toFixed(0)} KB`);
    }
    ref.close();

    // --- Chromium: largest contentful paint, JavaScript, drift to screen ------------------------------
    await browserRows(big20, bigRun);

    // --- the bot's writes, with and without the console under load; the console's memory ----------------
    await botRows(big20, bigRun);
    await floodRow(big20, bigRun);
    await liveRows(liveBench(big20, bigRun));
    await big20.stop();
    await pruneRows(pruneDeps(big.file));

    say(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await stopAll();
  }
  finish();
}

function finish() {
  printTable();
  fs.writeFileSync(path.join(benchDir, "results.json"), JSON.stringify({ at: new Date().toISOString(), rows, figures }, null, 2));
  say(`figures written to ${path.relative(root, path.join(benchDir, "results.json"))}`);
  const missed = rows.filter((r) => !r.pass).length;
  say(`${rows.length - missed} of ${rows.length} targets met${missed ? `, ${missed} missed (see docs/performance.md)` : ""}`);
  if (args.strict && missed > 0) process.exit(1);
}

/** The incident export of the journal's last full hour (issue 14 closed its miss). */
async function incidentHourRow(server: Server, last: string) {
  const hourTo = new Date(Math.floor(Date.parse(last) / 60_000) * 60_000).toISOString();
  const hourFrom = new Date(Date.parse(hourTo) - 3_600_000).toISOString();
  const url = `${server.url}/api/incidents/export?format=json&from=${encodeURIComponent(hourFrom)}&to=${encodeURIComponent(hourTo)}`;
  const incident = await timeWithCpu(server, url);
  const events = (JSON.parse(incident.last) as { events: unknown[] }).events.length;
  figures.incident = {
    p50: quantile(incident.latencies, 0.5),
    p95: quantile(incident.latencies, 0.95),
    events,
    cpuMsPerRequest: incident.cpuMs,
    firstMs: incident.firstMs,
  };
  say(`figure: the first export of that hour in this run: ${ms(incident.firstMs)}`);
  // Checked at p50: issue 14 states this target as its miss, "p50 90 ms against 50 ms", and names
  // p95 where it means it (the drift row's "p95 ≤ 300 ms"). Until 2026-12-05 this row checked p95,
  // which sits at 45-55 ms, on the edge, on two cores for 2.7 MB of JSON (docs/performance.md,
  // "The incident hour's statistic"): printed beside it, and the page row below keeps p95.
  row(
    "incident timeline, 1 h (JSON export of all its events)",
    "p50 ≤ 50 ms",
    `p50 ${ms(quantile(incident.latencies, 0.5))}, p95 ${ms(quantile(incident.latencies, 0.95))} (${events.toLocaleString("en")} events; the console's CPU ${ms(incident.cpuMs)} a request)${failed(incident.errors, 40)}`,
    quantile(incident.latencies, 0.5) <= 50 && incident.errors === 0,
  );
  await browserDownloadFigure(url);
  return { hourFrom, hourTo };
}

/** A row's failed requests, said in its figures: a page that answered 500 is fast, and not a page. */
const failed = (errors: number, of: number) => (errors > 0 ? `; ${errors} of ${of} requests failed (not 200)` : "");

/** What a browser asks for (Chrome's Accept-Encoding over HTTPS). */
const BROWSER_ACCEPT_ENCODING = "gzip, deflate, br, zstd";

/**
 * Not a target: the same export as a browser downloads it. The row above is what a tool gets
 * without Accept-Encoding (curl, a script); a browser's download is compressed by Next (gzip at
 * its default level, in the console's process), about 15 times smaller on the wire and dearer in
 * CPU, which on loopback is all cost. Timed to the last byte on the wire.
 */
async function browserDownloadFigure(url: string) {
  const t = await timeRequests(url, 40, 10, { "Accept-Encoding": BROWSER_ACCEPT_ENCODING });
  const figure = {
    p50: quantile(t.latencies, 0.5),
    p95: quantile(t.latencies, 0.95),
    encoding: t.lastEncoding,
    bytesOnTheWire: t.lastBytes,
    errors: t.errors,
  };
  figures.incidentBrowserDownload = figure;
  say(
    `figure: the same export as a browser downloads it (Accept-Encoding: ${BROWSER_ACCEPT_ENCODING}): p50 ${ms(figure.p50)}, p95 ${ms(figure.p95)}, ${figure.encoding}, ${(figure.bytesOnTheWire / 1024).toFixed(0)} KB on the wire${t.errors > 0 ? `, ${t.errors} errors` : ""}`,
  );
}

/**
 * The same hour as the reviewer opens it: the page (`/incidents?from&to`), whose busy minutes fold
 * their routine events. Beside the export's row, not instead of it: the export is every event
 * worded (the file a tool reads), the page is what a person reads first.
 */
async function incidentPageRow(server: Server, { hourFrom, hourTo }: { hourFrom: string; hourTo: string }) {
  const t = await timeWithCpu(server, `${server.url}/incidents?from=${encodeURIComponent(hourFrom)}&to=${encodeURIComponent(hourTo)}`);
  const counts = /data-testid="window-counts"[^>]*><strong>([\d,]+)<\/strong>/.exec(t.last)?.[1] ?? "?";
  const page = {
    p50: quantile(t.latencies, 0.5),
    p95: quantile(t.latencies, 0.95),
    bytes: Buffer.byteLength(t.last),
    events: counts,
    cpuMsPerRequest: t.cpuMs,
  };
  figures.incidentPage = page;
  row(
    "incident page, 1 h (the HTML a reviewer opens; busy minutes folded)",
    "p95 ≤ 50 ms",
    `p50 ${ms(page.p50)}, p95 ${ms(page.p95)} (${counts} events, ${(page.bytes / 1024).toFixed(0)} KB of HTML; the console's CPU ${ms(t.cpuMs)} a request)${failed(t.errors, 40)}`,
    page.p95 <= 50 && t.errors === 0,
  );
}

/**
 * timeRequests, and the console's CPU time per timed request (its process tree's run time): on a
 * machine others load, the latency swings with their work; the CPU a request costs much less.
 * 40 requests: of 15, the p95 is the slowest one (quantile takes the 15th of 15), so one pause of
 * the machine decided the row; of 40 it is the 38th. After 10 untimed ones, the first of which is
 * given as `firstMs`: the export's code runs on two threads (lib/incidents/export-thread.ts), each
 * compiling it as it first runs, and the first few requests of a fresh console were twice as slow.
 */
async function timeWithCpu(server: Server, url: string, times = 40) {
  const firstMs = (await get(url)).ms;
  for (let i = 1; i < 10; i++) await get(url);
  const before = treeCpuMs(server.pid);
  const t = await timeRequests(url, times, 0);
  return { ...t, firstMs, cpuMs: (treeCpuMs(server.pid) - before) / times };
}

/** `--only incident`: the export row and the page row of the journal's last full hour. */
async function incidentRows(server: Server, run: string) {
  const ref = new Database(run, { readonly: true });
  const last = ref.prepare(`SELECT max(at) FROM reconciliations`).pluck().get() as string;
  ref.close();
  const hour = await incidentHourRow(server, last);
  await incidentPageRow(server, hour);
}

function liveBench(server: Server, journal: string): Parameters<typeof liveRows>[0] {
  return {
    root,
    server,
    journal,
    viewers: Number(args.viewers),
    holdStreams: Number(args["hold-streams"]),
    holdSeconds: Number(args["hold-seconds"]),
    pollersNice: POLLERS_NICE,
    nice: NICE,
    rounds: Number(args.rounds),
    row,
    figures,
    say,
    forkBot,
    treeRssMb,
  };
}

/** `--only live`: the reference journal of --days, one console, the incident hour and the /api/live rows. */
async function liveOnly(started: number) {
  const journal = referenceJournal(DAYS);
  figures.journals = { [`${DAYS}d`]: journal.report };
  const run = workingCopy(journal.file);
  say("starting the console");
  const server = await startBenchConsole(run);
  try {
    await poll([`${server.url}/api/overview`], 4, 50, 3_000);
    const ref = new Database(run, { readonly: true });
    const last = ref.prepare(`SELECT max(at) FROM reconciliations`).pluck().get() as string;
    ref.close();
    await incidentHourRow(server, last);
    await liveRows(liveBench(server, run));
    say(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await server.stop();
  }
  finish();
}

/**
 * `--only fleet`: the overview of a console on 10 journals of 10 bots each against one on a single
 * journal of the same 100 bots, under 20 pollers each in turn (issue 15: p50 within 2×).
 */
async function fleetOnly(started: number) {
  say("writing 10 journals of 10 bots, and one journal of the same 100");
  const { several, one } = await fleetJournals(path.join(benchDir, "fleet"), { journals: 10, botsEach: 10 });
  const fleet = await startBenchConsole(several.join(","));
  const single = await startBenchConsole(one);
  try {
    for (const u of [`${fleet.url}/api/overview`, `${single.url}/api/overview`]) await poll([u], 4, 50, 3_000);
    say(`overview: 20 pollers every 500 ms for ${PHASE_MS / 1000} s, on each console in turn`);
    const fleetPoll = await poll([`${fleet.url}/api/overview`], 20, 500, PHASE_MS);
    const singlePoll = await poll([`${single.url}/api/overview`], 20, 500, PHASE_MS);
    const p = (r: PollResult, q: number) => quantile(r.latencies, q);
    figures.fleet = {
      several: { p50: p(fleetPoll, 0.5), p99: p(fleetPoll, 0.99), requests: fleetPoll.requests, errors: fleetPoll.errors },
      one: { p50: p(singlePoll, 0.5), p99: p(singlePoll, 0.99), requests: singlePoll.requests, errors: singlePoll.errors },
    };
    const ratio = p(fleetPoll, 0.5) / p(singlePoll, 0.5);
    row(
      "overview JSON, 20 pollers, 10 journals of 10 bots against one journal of the same 100",
      "p50 ratio ≤ 2",
      `p50 ${ms(p(fleetPoll, 0.5))} against ${ms(p(singlePoll, 0.5))}; p99 ${ms(p(fleetPoll, 0.99))} against ${ms(p(singlePoll, 0.99))}; ${fleetPoll.errors + singlePoll.errors} errors`,
      ratio <= 2 && fleetPoll.errors === 0 && singlePoll.errors === 0,
      `×${ratio.toFixed(2)}`,
    );
    say(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await fleet.stop();
    await single.stop();
  }
  finish();
}

/** `--only flood`, `--only browser` and `--only live-bot`: the reference journal of --days, one console, those rows. */
async function oneConsole(started: number, rows: (server: Server, run: string) => Promise<void>) {
  const journal = referenceJournal(DAYS);
  figures.journals = { [`${DAYS}d`]: journal.report };
  const run = workingCopy(journal.file);
  say("starting the console");
  const server = await startBenchConsole(run);
  try {
    await poll([`${server.url}/api/overview`], 4, 50, 3_000);
    await rows(server, run);
    say(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await server.stop();
  }
  finish();
}

// --- retention (scripts/bench/prune.ts) ----------------------------------------------------------------

const pruneDeps = (reference: string) => ({
  reference,
  phaseMs: PHASE_MS,
  weekDays: Number(args["prune-days"]),
  pruneForMs: Number(args["prune-for"]) * 1000,
  forkBot,
  startConsole: startBenchConsole,
  row,
  say,
  figures,
});

async function pruneOnly(started: number) {
  await pruneRows(pruneDeps(referenceJournal(DAYS).file));
  say(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  finish();
}

/**
 * Every drift run of the symbol inside the window, by a full scan of its cycles, against the
 * episodes the chart returned: a run is shown when some episode overlaps it.
 */
function missingEpisodes(db: Database.Database, botId: string, symbol: string, window: { from: string; to: string }, episodes: { from: number; to: number }[]) {
  const cycles = db
    .prepare(
      `SELECT r.at, coalesce(p.ours, 0) AS ours, coalesce(p.theirs, 0) AS theirs, coalesce(p.qty_step, 1) AS step
       FROM reconciliations r LEFT JOIN reconciliation_positions p ON p.reconciliation_id = r.id AND p.symbol = ?
       WHERE r.bot_id = ? AND r.at >= ? AND r.at <= ? AND r.outcome IN ('clean', 'drift') ORDER BY r.at, r.id`,
    )
    .raw()
    .iterate(symbol, botId, window.from, window.to) as IterableIterator<[string, number, number, number]>;
  const runs: { from: number; to: number }[] = [];
  let open: { from: number; to: number } | null = null;
  for (const [at, ours, theirs, step] of cycles) {
    const t = Date.parse(at);
    const drifting = Math.abs(ours - theirs) >= step / 2;
    if (drifting && !open) open = { from: t, to: t };
    else if (drifting && open) open.to = t;
    else if (!drifting && open) {
      runs.push(open);
      open = null;
    }
  }
  if (open) runs.push(open);
  const missing = runs.filter((r) => !episodes.some((e) => e.from <= r.to && e.to >= r.from)).length;
  return { total: runs.length, missing };
}

async function browserRows(server: Server, journal: string) {
  const executablePath = process.env.DRIFTWATCH_CHROMIUM ?? ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((p) => fs.existsSync(p));
  if (!executablePath) throw new Error("Chromium is not installed: run npm run setup (it installs Debian's chromium)");
  const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] });
  try {
    // Largest contentful paint and the JavaScript the overview loads, from a cold cache, five times.
    const lcps: number[] = [];
    let jsGzip = 0;
    let jsFiles = 0;
    for (let i = 0; i < 5; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const scripts: Promise<number>[] = [];
      page.on("response", (res) => {
        if (res.request().resourceType() === "script")
          scripts.push(
            res
              .body()
              .then((b) => zlib.gzipSync(b).length)
              .catch(() => 0),
          );
      });
      await page.goto(server.url, { waitUntil: "load" });
      await page.waitForSelector('[data-testid="symbol-row"]');
      const lcp = await page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            new PerformanceObserver((list) => {
              const entries = list.getEntries();
              resolve(entries.at(-1)?.startTime ?? NaN);
            }).observe({ type: "largest-contentful-paint", buffered: true });
          }),
      );
      lcps.push(lcp);
      const sizes = await Promise.all(scripts);
      jsGzip = sizes.reduce((a, b) => a + b, 0);
      jsFiles = sizes.length;
      await context.close();
    }
    const lcp = quantile(lcps, 0.5);
    figures.browser = { lcps, jsGzipBytes: jsGzip, jsFiles };
    row("overview in Chromium: largest contentful paint", "≤ 1 s", `median ${ms(lcp)} over 5 cold loads (worst ${ms(Math.max(...lcps))})`, lcp <= 1000);
    row("overview in Chromium: its JavaScript", "≤ 250 KB gzipped", `${(jsGzip / 1024).toFixed(0)} KB gzipped in ${jsFiles} files`, jsGzip <= 250 * 1024);

    // Drift committed by a bot (another process's connection) → shown in an open overview.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(server.url, { waitUntil: "load" });
    await page.waitForSelector('[data-testid="symbol-row"]');
    const writer = new Database(journal);
    writer.pragma("busy_timeout = 5000");
    const bot = "alpha";
    const lines = writer.prepare(`SELECT symbol, ours, theirs, qty_step AS step, mark_price AS mark FROM latest_positions WHERE bot_id = ?`).all(bot) as {
      symbol: string;
      ours: number;
      theirs: number;
      step: number;
      mark: number;
    }[];
    const probe = lines.at(-1);
    if (!probe) throw new Error(`no latest_positions rows for ${bot}`);
    const commit = writer.transaction((drift: boolean) => {
      const at = new Date().toISOString();
      const rid = Number(
        writer.prepare(`INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES (?, ?, ?, 0)`).run(bot, at, drift ? "drift" : "clean")
          .lastInsertRowid,
      );
      const put = writer.prepare(
        `INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (?, ?, ?, ?, ?, ?)`,
      );
      for (const l of lines) {
        const theirs = l === probe ? l.ours + (drift ? 3 * l.step : 0) : l.ours;
        put.run(rid, l.symbol, l.ours, theirs, l.step, l.mark);
      }
      writer.prepare(`UPDATE bots SET heartbeat_at = ? WHERE bot_id = ?`).run(at, bot);
    });
    const delays: number[] = [];
    for (let i = 0; i < 20; i++) {
      const drift = i % 2 === 0;
      await sleep(300 + Math.random() * 700);
      commit(drift);
      const committed = Date.now();
      await page.waitForSelector(`[data-testid="symbol-row"][data-symbol="${probe.symbol}"][data-drift="${drift ? "size_drift" : "none"}"]`, {
        timeout: 15_000,
      });
      delays.push(Date.now() - committed);
    }
    writer.close();
    await context.close();
    const p95 = quantile(delays, 0.95);
    figures.driftToScreen = { delays };
    row(
      "drift committed by the bot → shown in an open overview (Chromium)",
      "≤ 300 ms at p95 (was ≤ 2 s while the page polled)",
      `p50 ${ms(quantile(delays, 0.5))}, p95 ${ms(p95)} over ${delays.length} changes`,
      p95 <= 300,
    );
  } finally {
    await browser.close();
  }
}

/**
 * `poll` in a child process at nice POLLERS_NICE: the load stands for browsers elsewhere, and must
 * not take the CPU from the bot and the console whose cost this row measures.
 */
function pollersProcess(urls: string[], clients: number, intervalMs: number, durationMs: number): Promise<PollResult> {
  const argv = [
    process.execPath,
    "--import",
    "tsx",
    path.join(root, "scripts/bench/pollers.ts"),
    String(durationMs),
    String(clients),
    String(intervalMs),
    ...urls,
  ];
  const [cmd, ...args] = POLLERS_NICE > 0 ? ["nice", "-n", String(POLLERS_NICE), ...argv] : argv;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd!, args, { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`the pollers exited with ${code}`));
      try {
        resolve(JSON.parse(out) as PollResult);
      } catch (error) {
        reject(new Error(`the pollers printed no result: ${(error as Error).message}`));
      }
    });
  });
}

interface BotReport {
  latencies: Record<string, number[]>;
  busy: number;
  otherErrors: number;
}

/** scripts/bench/bot-writes.ts in its own process, ready to write: tag phases, then stop for its report. */
async function forkBot(journal: string): Promise<{ child: ChildProcess; report: () => Promise<BotReport> }> {
  const child = fork(path.join(root, "scripts/bench/bot-writes.ts"), [journal, "20"], {
    cwd: root,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const messages: Record<string, unknown>[] = [];
  child.on("message", (m) => messages.push(m as Record<string, unknown>));
  const deadline = Date.now() + 30_000;
  while (!messages.some((m) => m.ready)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error("the bench bot did not start");
    await sleep(50);
  }
  const report = async () => {
    child.send({ stop: true });
    const deadlineStop = Date.now() + 30_000;
    while (!messages.some((m) => m.latencies)) {
      if (Date.now() > deadlineStop) throw new Error("the bench bot did not report");
      await sleep(50);
    }
    return messages.find((m) => m.latencies) as unknown as BotReport;
  };
  return { child, report };
}

async function botRows(server: Server, journal: string) {
  const { child, report: botReport } = await forkBot(journal);
  const phaseMs = Math.max(10_000, PHASE_MS * 0.75);
  say(
    `the bot writes 50 times a second; alternating ${phaseMs / 1000} s without and with 20 pollers on the console, twice (pollers in their own process${POLLERS_NICE > 0 ? ` at nice ${POLLERS_NICE}` : ""})`,
  );
  const urls = [`${server.url}/api/overview`, `${server.url}/api/doubtful`, `${server.url}/api/breakers`];
  let rssMax = 0;
  let load: PollResult = { latencies: [], errors: 0, requests: 0 };
  const rssTimer = setInterval(() => (rssMax = Math.max(rssMax, treeRssMb(server.pid))), 250);
  await sleep(2_000);
  for (const round of [1, 2]) {
    child.send({ phase: `quiet` });
    await sleep(phaseMs);
    child.send({ phase: `load` });
    const r = await pollersProcess(urls, 20, 500, phaseMs);
    load = { latencies: [...load.latencies, ...r.latencies], errors: load.errors + r.errors, requests: load.requests + r.requests };
    void round;
  }
  child.send({ phase: "done" });
  clearInterval(rssTimer);
  const report = await botReport();
  const quiet = report.latencies.quiet ?? [];
  const loaded = report.latencies.load ?? [];
  const consoleBusy = (server.output().match(/SQLITE_BUSY|database is locked/g) ?? []).length;
  const ratio = quantile(loaded, 0.99) / quantile(quiet, 0.99);
  figures.botWrites = {
    quiet: { n: quiet.length, p50: quantile(quiet, 0.5), p99: quantile(quiet, 0.99) },
    load: { n: loaded.length, p50: quantile(loaded, 0.5), p99: quantile(loaded, 0.99) },
    botBusy: report.busy,
    botOtherErrors: report.otherErrors,
    consoleBusy,
    consoleRequests: load.requests,
    consoleErrors: load.errors,
  };
  row(
    `bot journal-write p99, console${NICE > 0 ? ` (nice ${NICE})` : ""} under load against idle`,
    "ratio ≤ 1.25, no SQLITE_BUSY",
    `p99 ${ms(quantile(loaded, 0.99))} against ${ms(quantile(quiet, 0.99))} (${loaded.length + quiet.length} writes); SQLITE_BUSY: bot ${report.busy}, console ${consoleBusy}; ${load.requests} console requests, ${load.errors} errors`,
    ratio <= 1.25 && report.busy === 0 && consoleBusy === 0 && report.otherErrors === 0,
    `×${ratio.toFixed(2)}`,
  );
  figures.rssMb = rssMax;
  row("console memory under that load", "RSS ≤ 300 MB", `${rssMax.toFixed(0)} MB at most (next start and its workers)`, rssMax <= 300);
}

/** scripts/bench/flood.ts in a child process at nice POLLERS_NICE, like the pollers. */
function floodProcess(
  durationMs: number,
  concurrency: number,
  url: string,
  actionId: string,
  viewerCookie: string,
): Promise<{ requests: number; errors: number; answers: Record<string, number> }> {
  const argv = [
    process.execPath,
    "--import",
    "tsx",
    path.join(root, "scripts/bench/flood.ts"),
    String(durationMs),
    String(concurrency),
    url,
    actionId,
    viewerCookie,
  ];
  const [cmd, ...rest] = POLLERS_NICE > 0 ? ["nice", "-n", String(POLLERS_NICE), ...argv] : argv;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd!, rest, { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`the flood exited with ${code}`));
      try {
        resolve(JSON.parse(out));
      } catch (error) {
        reject(new Error(`the flood printed no result: ${(error as Error).message}`));
      }
    });
  });
}

/**
 * Issue 18's flood: the bot writing 50 times a second while strangers and a signed-in viewer post
 * server actions as fast as 32 connections allow; its write p99 against the same bot with the
 * console idle, with the bot-write row's target. Nothing of the flood may be audited.
 */
async function floodRow(server: Server, journal: string) {
  const viewer = { name: "bench-viewer", role: "viewer" as const, password: "bench viewer's long password" };
  const accounts = openAccountsDb(accountsFileFor(new URL(server.url).port), { migrationsDir: path.join(root, "drizzle/accounts") });
  const existing = accounts.sqlite.prepare(`SELECT sessions_valid_from FROM accounts WHERE name = ?`).pluck().get(viewer.name) as string | undefined;
  const sessionsValidFrom = existing ?? (await createAccount(accounts.db, viewer)).sessionsValidFrom;
  accounts.sqlite.close();
  const cookie = `${SESSION_COOKIE}=${signSession(sessionPayload({ name: viewer.name, sessionsValidFrom, ttlMs: 3_600_000 }), BENCH_SESSION_SECRET)}`;
  const manifest = JSON.parse(fs.readFileSync(path.join(root, ".next/server/server-reference-manifest.json"), "utf8")) as {
    node: Record<string, { exportedName?: string }>;
  };
  const actionId = Object.entries(manifest.node).find(([, v]) => v.exportedName === "resolveManuallyAction")?.[0];
  if (!actionId) throw new Error("no resolveManuallyAction in this build");

  const strangerAudits = () => {
    const db = new Database(journal, { readonly: true });
    db.pragma("busy_timeout = 5000");
    const n = db.prepare(`SELECT count(*) FROM audit_log WHERE actor NOT LIKE 'operator:%'`).pluck().get() as number;
    db.close();
    return n;
  };
  const auditsBefore = strangerAudits();
  const bot = await forkBot(journal);
  const phaseMs = Math.max(10_000, PHASE_MS * 0.75);
  say(
    `the bot writes 50 times a second; alternating ${phaseMs / 1000} s without and with an action flood (anonymous and viewer, 32 connections${POLLERS_NICE > 0 ? `, at nice ${POLLERS_NICE}` : ""}), twice`,
  );
  const flood = { requests: 0, errors: 0, answers: {} as Record<string, number> };
  await sleep(2_000);
  for (const round of [1, 2]) {
    bot.child.send({ phase: "quiet" });
    await sleep(phaseMs);
    bot.child.send({ phase: "flood" });
    const r = await floodProcess(phaseMs, 32, server.url, actionId, cookie);
    flood.requests += r.requests;
    flood.errors += r.errors;
    for (const [k, v] of Object.entries(r.answers)) flood.answers[k] = (flood.answers[k] ?? 0) + v;
    void round;
  }
  bot.child.send({ phase: "done" });
  const report = await bot.report();
  const audited = strangerAudits() - auditsBefore;
  const quiet = report.latencies.quiet ?? [];
  const flooded = report.latencies.flood ?? [];
  const consoleBusy = (server.output().match(/SQLITE_BUSY|database is locked/g) ?? []).length;
  const ratio = quantile(flooded, 0.99) / quantile(quiet, 0.99);
  figures.botWritesUnderFlood = {
    quiet: { n: quiet.length, p50: quantile(quiet, 0.5), p99: quantile(quiet, 0.99) },
    flood: { n: flooded.length, p50: quantile(flooded, 0.5), p99: quantile(flooded, 0.99) },
    botBusy: report.busy,
    botOtherErrors: report.otherErrors,
    consoleBusy,
    posts: flood,
    strangerAuditRows: audited,
  };
  const answers = Object.entries(flood.answers)
    .map(([k, v]) => `${v.toLocaleString("en")} ${k}`)
    .join(", ");
  row(
    `bot journal-write p99, console${NICE > 0 ? ` (nice ${NICE})` : ""} under an action flood against idle`,
    "ratio ≤ 1.25, no SQLITE_BUSY, 0 audit rows",
    `p99 ${ms(quantile(flooded, 0.99))} against ${ms(quantile(quiet, 0.99))} (${flooded.length + quiet.length} writes); ${flood.requests.toLocaleString("en")} posts (${answers}; ${flood.errors} errors); audit rows from them: ${audited}; SQLITE_BUSY: bot ${report.busy}, console ${consoleBusy}`,
    ratio <= 1.25 && report.busy === 0 && consoleBusy === 0 && report.otherErrors === 0 && audited === 0 && flood.errors === 0,
    `×${ratio.toFixed(2)}`,
  );
}

main().catch((error) => {
  console.error(`bench: failed: ${(error as Error).stack ?? error}`);
  process.exit(1);
});
