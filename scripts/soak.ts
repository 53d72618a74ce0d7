/**
 * The soak: the console's production build beside a bot writing fast, with clients polling and an
 * operator acting, for a set time; then every confirmed row and action is looked for.
 *
 *   npm run soak -- --seconds 60        (CI runs this after the build)
 *   npm run soak -- --seconds 600       (the documented 10-minute run)
 *
 * Options: --rate N (bot writes per second, default 250; the soak fails below 200), --clients N
 * (pollers, default 50), --streams N (open pages on GET /api/live, default 50; 0 for none), --incident-every S (default 12), --build (build first if the build is missing or
 * older than the sources), --keep (keep the temporary journal and print where it is).
 *
 * Prints a table of figures and exits 0, or 1 with a one-line reason when an invariant fails: a row
 * or an action lost, SQLITE_BUSY at the bot, a poll that was not served, a stream that dropped,
 * went silent for 3 s, sent an error view or missed the bot's last heartbeat, an audit chain that
 * does not verify, a write rate below 200/s. See docs/reliability.md.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { chromium, type Browser } from "playwright-core";
import { findAuditKey } from "../lib/audit/key";
import { migrateJournal } from "../lib/db/journal-file";
import { env } from "../lib/env";
import { SOAK_BOT_ID, type SoakBotReport } from "../tools/soak/bot";
import { BrowserOperator, type OperatorStats } from "../tools/soak/operator";
import { percentile, poll, soakRoutes } from "../tools/soak/pollers";
import { ViewerFleet, type FleetSummary, type LiveView } from "../tools/bench/sse-load";
import { verifyActions, verifyBotRows } from "../tools/soak/verify";
import { buildState } from "../tools/lib/build-state.mjs";
import { startConsole, type ConsoleServer } from "../tools/lib/console-server";

const root = path.resolve(import.meta.dirname, "..");
const MIN_WRITE_RATE = 200;
const OPERATOR = { name: "soak", password: randomBytes(12).toString("hex") };
const say = (line: string) => console.log(`soak: ${line}`);

/** The soak measures the production build; a missing one is built only when asked, a stale one is named. */
function checkBuild(build: boolean): string | null {
  const { builtAt, current } = buildState(root);
  if (current) return null;
  if (!build) {
    if (builtAt === 0) return "no production build: run `npm run build` first (or pass --build)";
    say("warning: the build is older than the sources; measuring it anyway (pass --build to rebuild first)");
    return null;
  }
  say("building the console first");
  const r = spawnSync(path.join(root, "node_modules/.bin/next"), ["build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  return r.status === 0 ? null : "the console did not build";
}

function chromiumPath(given: string | undefined): string | null {
  return [given, "/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((p): p is string => !!p && fs.existsSync(p)) ?? null;
}

function startBot(opts: { journal: string; seconds: number; rate: number; incidentEvery: number; report: string }) {
  // Node itself with tsx's loader, not the tsx wrapper: SIGTERM must reach the bot, which then
  // finishes its write and reports.
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "scripts/soak-bot.ts",
      "--journal",
      opts.journal,
      "--seconds",
      String(opts.seconds),
      "--rate",
      String(opts.rate),
      "--incident-every",
      String(opts.incidentEvery),
      "--report",
      opts.report,
    ],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function waitFor(what: string, check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "60" },
      rate: { type: "string", default: "250" },
      clients: { type: "string", default: "50" },
      streams: { type: "string", default: "50" },
      "incident-every": { type: "string", default: "12" },
      chromium: { type: "string" },
      build: { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
    },
  });
  const seconds = Number(values.seconds);
  const rate = Number(values.rate);
  const clients = Number(values.clients);
  const streamCount = Number(values.streams);
  const incidentEvery = Number(values["incident-every"]);
  if (
    !(seconds > 0) ||
    !(rate > 0) ||
    !Number.isInteger(clients) ||
    clients < 0 ||
    !Number.isInteger(streamCount) ||
    streamCount < 0 ||
    clients + streamCount < 1 ||
    !(incidentEvery > 0)
  ) {
    console.error("usage: npm run soak -- [--seconds 60] [--rate 250] [--clients 50] [--streams 50] [--incident-every 12] [--build] [--keep]");
    return 2;
  }
  const buildProblem = checkBuild(values.build);
  if (buildProblem) return fail(buildProblem);
  const browserPath = chromiumPath(values.chromium);
  if (!browserPath) return fail("no Chromium found (/usr/lib/chromium/chromium); install it (scripts/setup.sh) or pass --chromium PATH");

  const t0 = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-soak-"));
  const journal = path.join(dir, "journal.db");
  const accounts = path.join(dir, "accounts.db");
  const reportFile = path.join(dir, "bot-report.json");
  migrateJournal(journal);
  const add = spawnSync(path.join(root, "node_modules/.bin/tsx"), ["scripts/accounts.ts", "add", OPERATOR.name, "--role", "operator", "--password-stdin"], {
    cwd: root,
    input: `${OPERATOR.password}\n`,
    encoding: "utf8",
    env: { ...process.env, DRIFTWATCH_ACCOUNTS_DB: accounts },
  });
  if (add.status !== 0) return fail(`could not create the operator account: ${add.stderr.trim()}`);

  // Ctrl-C or SIGTERM ends the window early; the teardown below still stops the bot, the browser and
  // the console (its own process group, which a terminal's Ctrl-C does not reach), and the run fails.
  let interrupted = false;
  const interrupt = () => {
    if (!interrupted) say("interrupted: stopping the clients, the operator, the bot and the console");
    interrupted = true;
  };
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);
  let cleaned = false;
  let server: ConsoleServer | null = null;
  let browser: Browser | null = null;
  let bot: ReturnType<typeof startBot> | null = null;
  let streams: ViewerFleet | null = null;
  try {
    // The console and the browser start side by side: start-up is most of the soak's overhead in CI.
    const [launched, started] = await Promise.allSettled([
      // Playwright's own SIGINT handler exits the process (code 130) once the browser is closed,
      // which would leave the console running: the teardown below closes the browser itself.
      chromium.launch({
        executablePath: browserPath,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
      }),
      startConsole({ journal, env: { DRIFTWATCH_ACCOUNTS_DB: accounts, DRIFTWATCH_SESSION_SECRET: randomBytes(32).toString("hex") } }),
    ]);
    if (launched.status === "fulfilled") browser = launched.value;
    if (started.status === "fulfilled") server = started.value;
    if (launched.status === "rejected") throw launched.reason;
    if (started.status === "rejected") throw started.reason;
    if (!browser || !server) throw new Error("unreachable: the browser or the console did not start");
    say(`console ${server.url} on ${journal} (${fmt((Date.now() - t0) / 1000, 1)} s)`);

    // The bot starts while the operator signs in; it runs the window plus a margin and is stopped
    // (SIGTERM) when the window closes.
    bot = startBot({ journal, seconds: seconds + 60, rate, incidentEvery, report: reportFile });
    const operator = await BrowserOperator.signIn({ browser, baseUrl: server.url, botId: SOAK_BOT_ID, name: OPERATOR.name, password: OPERATOR.password });
    const reader = new Database(journal, { readonly: true, fileMustExist: true });
    await waitFor("the bot's first write", () => reader.prepare(`SELECT count(*) FROM bots WHERE bot_id = ?`).pluck().get(SOAK_BOT_ID) === 1, 30_000);
    reader.close();

    // Open pages as the stream client holds them: the soak bot's heartbeat is what each must keep up with.
    const views = ["overview", "doubtful", "breakers", `bot-clear:${encodeURIComponent(SOAK_BOT_ID)}`];
    streams = new ViewerFleet({ url: `${server.url}/api/live?views=${views.join(",")}`, views, marker: soakHeartbeat });
    await streams.open(streamCount);
    if (!(await streams.ready(30_000))) return fail(`the ${streamCount} streams did not all get their first views within 30 s`);

    say(
      `signed in (${fmt((Date.now() - t0) / 1000, 1)} s); ${seconds} s: the bot at ${rate} writes/s, ${clients} clients polling, ${streamCount} streaming, an operator in Chromium`,
    );
    const windowStart = Date.now();
    const end = windowStart + seconds * 1000;
    const until = () => interrupted || Date.now() >= end;
    const [polls, acted] = await Promise.all([
      poll({ baseUrl: server.url, routes: soakRoutes(SOAK_BOT_ID), clients, intervalMs: 1000, until }),
      operator.run({ everyMs: 2000, until }),
    ]);
    const windowSeconds = (Date.now() - windowStart) / 1000;
    await operator.close();

    bot.child.kill("SIGTERM");
    const code = await bot.exited;
    if (code !== 0 || !fs.existsSync(reportFile))
      return fail(`the bot exited with ${code} and no report: ${bot.output().trim().split("\n").at(-1) ?? "no output"}`);
    const report = JSON.parse(fs.readFileSync(reportFile, "utf8")) as SoakBotReport;
    // The bot has stopped: every stream must come to show its last heartbeat (the watcher reads within 150 ms).
    const lastBeat = lastHeartbeat(journal);
    const holding = streamCount > 0 && lastBeat !== null ? await streams.allHold(lastBeat, 10_000) : streamCount;
    const streamed = streams.summary();
    streams.close();
    streams = null;
    const sizeMb = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size / 1e6 : 0);
    const files = { journalMb: sizeMb(journal), walMb: sizeMb(`${journal}-wal`) };
    const consoleOutput = server.output();
    await server.stop();
    server = null;

    const db = new Database(journal, { readonly: true, fileMustExist: true });
    const rows = verifyBotRows(db, report);
    // The console kept its audit key beside the soak's accounts file.
    const actions = verifyActions(db, `operator:${OPERATOR.name}`, acted.confirmed, findAuditKey({ configured: env().auditKey, accountsDbPath: accounts }));
    db.close();
    const consoleBusy = (consoleOutput.match(/SQLITE_BUSY|database is locked/g) ?? []).length;
    const busyActions = acted.confirmed.filter((a) => a.code === "internal").length;

    printFigures({ seconds, windowSeconds, report, polls, acted, rows, actions, consoleBusy, busyActions, files, streamed, holding });
    if (!values.keep) {
      fs.rmSync(dir, { recursive: true, force: true });
      cleaned = true;
    }

    const writeRate = report.writes / report.seconds;
    const reasons = [
      rows.missing > 0 && `${rows.missing} row(s) the bot confirmed are not in the journal (${rows.samples[0]})`,
      rows.staleOrders > 0 && `${rows.staleOrders} order(s) older in the journal than the bot confirmed (${rows.samples[0]})`,
      !rows.heartbeatKept && "the bot's last confirmed heartbeat is not in the journal",
      report.busy > 0 && `${report.busy} SQLITE_BUSY at the bot`,
      report.errors > 0 && `${report.errors} error(s) at the bot (${report.errorSamples[0]})`,
      writeRate < MIN_WRITE_RATE && `the bot wrote ${fmt(writeRate)} writes/s, below ${MIN_WRITE_RATE}`,
      polls.errors > 0 && `${polls.errors} poll(s) not served (${polls.errorSamples[0]})`,
      streamed.clients - streamed.live > 0 && `${streamed.clients - streamed.live} stream(s) dropped (${JSON.stringify(streamed.ended)})`,
      streamed.failures > 0 && `${streamed.failures} error view(s) on the streams`,
      streamed.maxGapMs >= 3_000 && `a stream was silent for ${fmt(streamed.maxGapMs)} ms (pages call 3 s "not updating")`,
      holding < streamCount && `${streamCount - holding} stream(s) never showed the bot's last heartbeat`,
      actions.lost > 0 && `${actions.lost} confirmed action(s) without an audit entry (${actions.samples[0]})`,
      actions.effectMismatches > 0 && `audit log and journal disagree on ${actions.effectMismatches} action effect(s) (${actions.samples[0]})`,
      !actions.chain.ok && `the audit chain does not verify: ${actions.chain.problem}`,
      interrupted && "interrupted before the end of the window",
      actions.applied === 0 && "the operator got no action applied",
      actions.refused === 0 && "the operator got no action refused",
    ].filter((r): r is string => typeof r === "string");
    if (reasons.length > 0) return fail(reasons.join("; "));
    say(`passed in ${fmt((Date.now() - t0) / 1000, 1)} s: no row lost, no action lost, no SQLITE_BUSY at the bot, audit chain verified`);
    return 0;
  } finally {
    streams?.close();
    await browser?.close();
    if (bot && bot.child.exitCode === null) bot.child.kill("SIGKILL");
    await server?.stop();
    if (!cleaned) say(`the journal, the accounts file and the bot's report are in ${dir}`);
  }
}

function printFigures(f: {
  seconds: number;
  /** The window as it ran: longer by the operator's last action, shorter when interrupted. */
  windowSeconds: number;
  report: SoakBotReport;
  polls: Awaited<ReturnType<typeof poll>>;
  acted: OperatorStats;
  rows: ReturnType<typeof verifyBotRows>;
  actions: ReturnType<typeof verifyActions>;
  consoleBusy: number;
  busyActions: number;
  files: { journalMb: number; walMb: number };
  streamed: FleetSummary;
  /** Streams that showed the bot's last heartbeat once it stopped. */
  holding: number;
}) {
  const { report, polls, acted, rows, actions } = f;
  const statuses = Object.entries(polls.byStatus)
    .map(([s, n]) => `${s}: ${n}`)
    .join(", ");
  const lines: [string, string][] = [
    ["soak length", `${fmt(f.windowSeconds, 1)} s (asked ${f.seconds} s)`],
    ["requests served", `${polls.served} of ${polls.requests} (${fmt(polls.served / f.windowSeconds, 1)}/s; ${statuses})`],
    ["request errors", String(polls.errors)],
    [
      "streams (GET /api/live)",
      `${f.streamed.live} of ${f.streamed.clients} live to the end, ${f.holding} showed the bot's last heartbeat; ${f.streamed.events} view events, ${f.streamed.failures} error views, longest silence ${fmt(f.streamed.maxGapMs)} ms`,
    ],
    [
      "latency p50 / p99 / max",
      `${fmt(percentile(polls.latenciesMs, 50))} / ${fmt(percentile(polls.latenciesMs, 99))} / ${fmt(Math.max(...polls.latenciesMs))} ms`,
    ],
    [
      "latency p50 / p99 by route",
      Object.entries(polls.byRoute)
        .map(([r, ms]) => `${r.replace(/^\/api\//, "").replace(/\?.*$/, "")} ${fmt(percentile(ms, 50))}/${fmt(percentile(ms, 99))}`)
        .join(", "),
    ],
    ["bot writes", `${report.writes} in ${fmt(report.seconds, 1)} s`],
    ["bot write rate", `${fmt(report.writes / report.seconds)} writes/s`],
    ["bot write time p50 / p99 / max", `${fmt(report.writeMs.p50, 2)} / ${fmt(report.writeMs.p99, 2)} / ${fmt(report.writeMs.max, 1)} ms (BEGIN to COMMIT)`],
    [
      "rows found in the journal",
      `${rows.found} of ${rows.expected} confirmed (${rows.missing} lost; ${Object.keys(report.orders).length} orders, ${rows.staleOrders} behind their confirmed version)`,
    ],
    ["bot incidents (lost replies)", String(report.incidents)],
    ["journal at the end", `${fmt(f.files.journalMb, 1)} MB, WAL ${fmt(f.files.walMb, 1)} MB`],
    ["actions applied", `${actions.applied} (${tally(acted.confirmed.filter((a) => a.outcome === "applied").map((a) => a.action))})`],
    ["actions refused", `${actions.refused} (${tally(acted.confirmed.filter((a) => a.outcome === "refused").map((a) => `${a.action}: ${a.code}`))})`],
    [
      "actions unconfirmed",
      `${acted.unconfirmed.length} (no answer on the page within 20 s${acted.unconfirmed.length ? `: ${tally(acted.unconfirmed.map((a) => a.action))}; in the audit log as ${actions.unmatched.join(", ") || "nothing"}` : ""})`,
    ],
    ["operator browser failures", `${acted.errors}${acted.errors ? ` (${acted.errorSamples[0]})` : ""}`],
    ["actions lost", `${actions.lost} (+ ${actions.effectMismatches} effect mismatches)`],
    ["audit entries verified", `${actions.chain.entries}, chain ${actions.chain.ok ? "verified" : `BROKEN: ${actions.chain.problem}`}`],
    ["SQLITE_BUSY at the bot", String(report.busy)],
    ["SQLITE_BUSY at the console", `${f.consoleBusy} in its log, ${f.busyActions} action(s) failed internally`],
  ];
  const width = Math.max(...lines.map(([k]) => k.length));
  console.log("\nsoak figures");
  for (const [k, v] of lines) console.log(`  ${k.padEnd(width)}  ${v}`);
  console.log("");
}

/** The soak bot's heartbeat as the overview shows it: what each stream must keep up with. */
function soakHeartbeat(view: LiveView): string | null {
  if (view.view !== "overview") return null;
  const bots = (view.data as { bots?: { botId: string; heartbeatAt: string | null }[] } | undefined)?.bots ?? [];
  return bots.find((b) => b.botId === SOAK_BOT_ID)?.heartbeatAt ?? null;
}

function lastHeartbeat(journal: string): string | null {
  const db = new Database(journal, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT heartbeat_at FROM bots WHERE bot_id = ?`).pluck().get(SOAK_BOT_ID) as string | undefined) ?? null;
  } finally {
    db.close();
  }
}

/** "3 clear_halt, 2 acknowledge_drift": how many of each, most first. */
function tally(names: string[]): string {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return (
    [...counts]
      .sort((a, b) => b[1] - a[1])
      .map(([n, c]) => `${c} ${n}`)
      .join(", ") || "none"
  );
}

function fail(reason: string): number {
  console.error(`soak: FAILED: ${reason}`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`soak: FAILED: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
