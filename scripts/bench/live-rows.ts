/**
 * Issue 14's rows of `npm run bench`: the overview pushed over GET /api/live against today's
 * polling, in the same run, on the same console and journal.
 *
 * - drift committed → seen: one commit sequence, watched at once by an open stream and by a client
 *   polling /api/overview every second as the page did;
 * - the console's CPU per journal change with `viewers` open overviews against one (its process
 *   tree's run time from /proc/PID/task/TID/schedstat, nanoseconds, not wall time);
 * - the bot's journal-write p99 with `viewers` open overviews against none;
 * - 1,000 streams held for a minute: the console's RSS, and every client receives every change.
 *
 * The streams run in scripts/bench/streams.ts, a process of their own at the pollers' niceness: they
 * stand for browsers on other machines. Kept apart from run.ts, which passes in what it owns.
 */
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { get, quantile, sleep } from "../../tools/bench/http-load";
import { probeMarker, ViewerFleet, type FleetSummary } from "../../tools/bench/sse-load";
import type { ConsoleServer } from "../../tools/lib/console-server";

export interface LiveBench {
  root: string;
  server: ConsoleServer;
  journal: string;
  viewers: number;
  holdSeconds: number;
  holdStreams: number;
  pollersNice: number;
  nice: number;
  /** Rounds of the bot-write row (default 6). */
  rounds?: number;
  row: (what: string, target: string, measured: string, pass: boolean, ratio?: string) => void;
  figures: Record<string, unknown>;
  say: (line: string) => void;
  forkBot: (
    journal: string,
  ) => Promise<{ child: ChildProcess; report: () => Promise<{ latencies: Record<string, number[]>; busy: number; otherErrors: number }> }>;
  treeRssMb: (pid: number) => number;
}

const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 1)} ms`;
const nowMs = () => performance.timeOrigin + performance.now();

/** Pids of a process and its descendants. */
function tree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone while we looked
    }
  }
  const out: number[] = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}

/** CPU time of a process tree in ms: every thread's run time (schedstat, ns), so no 10 ms clock ticks. */
export function treeCpuMs(pid: number): number {
  let ns = 0;
  for (const p of tree(pid)) {
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        ns += Number(fs.readFileSync(`/proc/${p}/task/${t}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // thread ended
      }
    }
  }
  return ns / 1e6;
}

/** A writer that commits a reconciliation in which one probe line changes to a new size each time. */
function probeWriter(journal: string) {
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
  let k = 0;
  const commit = writer.transaction((theirs: number) => {
    const at = new Date().toISOString();
    const rid = Number(
      writer
        .prepare(`INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES (?, ?, ?, 0)`)
        .run(bot, at, theirs === probe.ours ? "clean" : "drift").lastInsertRowid,
    );
    const put = writer.prepare(
      `INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    for (const l of lines) put.run(rid, l.symbol, l.ours, l === probe ? theirs : l.ours, l.step, l.mark);
    writer.prepare(`UPDATE bots SET heartbeat_at = ? WHERE bot_id = ?`).run(at, bot);
  });
  return {
    bot,
    symbol: probe.symbol,
    /** Commits the next size (a drift of k steps, k growing, so every change is a new line); returns its theirs. */
    next: () => {
      k += 1;
      const theirs = probe.ours + (k + 2) * probe.step;
      commit(theirs);
      return { theirs, at: nowMs() };
    },
    close: () => writer.close(),
  };
}

const liveUrl = (server: ConsoleServer) => `${server.url}/api/live?views=overview`;

/** scripts/bench/streams.ts forked at the pollers' niceness, ready when every stream has its first view. */
async function streamsProcess(b: LiveBench, clients: number, probe: { bot: string; symbol: string }) {
  const script = path.join(b.root, "scripts/bench/streams.ts");
  const child = fork(script, [liveUrl(b.server), String(clients), probe.bot, probe.symbol], {
    cwd: b.root,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  // At the pollers' niceness: the streams stand for browsers elsewhere (setPriority fails quietly where not allowed).
  if (b.pollersNice > 0 && child.pid) renice(child.pid, b.pollersNice);
  const messages: { ready?: FleetSummary; summary?: FleetSummary }[] = [];
  child.on("message", (m) => messages.push(m as (typeof messages)[number]));
  const wait = async (key: "ready" | "summary", ms: number) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const i = messages.findIndex((m) => m[key]);
      if (i >= 0) return messages.splice(i, 1)[0]![key]!;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the streams process gave no ${key}`);
      await sleep(50);
    }
  };
  const ready = await wait("ready", 120_000);
  return {
    ready,
    report: async () => {
      child.send({ report: true });
      return wait("summary", 30_000);
    },
    stop: async () => {
      child.send({ stop: true });
      const s = await wait("summary", 30_000);
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
      return s;
    },
  };
}

function renice(pid: number, nice: number) {
  try {
    os.setPriority(pid, nice);
  } catch {
    // not allowed: the streams run at the default priority
  }
}

/** The marker of a committed size, whatever drift class the console gives it: `theirs/…`. */
const markerOf = (keys: Iterable<string>, theirs: number) => [...keys].find((k) => k.startsWith(`${theirs}/`));

export async function liveRows(b: LiveBench): Promise<void> {
  const w = probeWriter(b.journal);
  const probe = { bot: w.bot, symbol: w.symbol };
  const marker = probeMarker(probe.bot, probe.symbol);
  try {
    await driftToSeen(b, w, marker);
    await cpuPerChange(b, w, probe);
    await liveBotWrites(b, probe);
    await holdStreams(b, w, probe);
  } finally {
    w.close();
  }
}

/** One commit sequence, an open stream and a 1 s poller watching it at once. */
async function driftToSeen(b: LiveBench, w: ReturnType<typeof probeWriter>, marker: ReturnType<typeof probeMarker>) {
  b.say("drift to screen: 20 commits at random intervals, watched by an open stream and by a poller every 1 s at once");
  const fleet = new ViewerFleet({ url: liveUrl(b.server), views: ["overview"], marker });
  await fleet.open(1);
  if (!(await fleet.ready(30_000)) || fleet.summary().live !== 1) throw new Error(`the live stream did not open: ${JSON.stringify(fleet.summary().ended)}`);
  const polled = new Map<string, number>();
  let polling = true;
  let pollErrors = 0;
  const poller = (async () => {
    while (polling) {
      const next = Date.now() + 1000;
      try {
        const r = await get(`${b.server.url}/api/overview`);
        if (r.status !== 200) pollErrors += 1;
        else {
          const m = marker({ view: "overview", ok: true, data: (JSON.parse(r.body) as { data: unknown }).data });
          if (m !== null && !polled.has(m)) polled.set(m, nowMs());
        }
      } catch {
        pollErrors += 1;
      }
      await sleep(Math.max(0, next - Date.now()));
    }
  })();
  const commits: { theirs: number; at: number }[] = [];
  for (let i = 0; i < 20; i++) {
    await sleep(300 + Math.random() * 1200);
    commits.push(w.next());
  }
  await sleep(1_500);
  polling = false;
  await poller;
  const s = fleet.summary();
  fleet.close();
  const seen = (first: (theirs: number) => number | undefined) =>
    commits.flatMap((c) => {
      const t = first(c.theirs);
      return t === undefined ? [] : [t - c.at];
    });
  const streamed = seen((theirs) => s.arrivals[markerOf(Object.keys(s.arrivals), theirs) ?? ""]?.[0]);
  const polledDelays = seen((theirs) => polled.get(markerOf(polled.keys(), theirs) ?? ""));
  b.figures.liveDriftToSeen = { streamed, polled: polledDelays, pollErrors, missedByStream: commits.length - streamed.length };
  b.row(
    "drift committed → seen by an open overview stream (/api/live)",
    "≤ 300 ms at p95, every change",
    `p50 ${ms(quantile(streamed, 0.5))}, p95 ${ms(quantile(streamed, 0.95))}, ${streamed.length} of ${commits.length} changes`,
    quantile(streamed, 0.95) <= 300 && streamed.length === commits.length,
  );
  b.row(
    "the same commits → seen by a poller every 1 s (the page before /api/live)",
    "figure (was ≤ 2 s)",
    `p50 ${ms(quantile(polledDelays, 0.5))}, p95 ${ms(quantile(polledDelays, 0.95))}, ${polledDelays.length} of ${commits.length} seen (a change overwritten before the next poll is never seen); ${pollErrors} errors`,
    pollErrors === 0,
  );
}

/** Console CPU per change with 1 and with `viewers` open overviews; the idle cost of the same streams subtracted. */
async function cpuPerChange(b: LiveBench, w: ReturnType<typeof probeWriter>, probe: { bot: string; symbol: string }) {
  const changes = 20;
  const result: Record<number, { perChange: number; idlePerSecond: number; received: number }> = {};
  for (const n of [1, b.viewers]) {
    b.say(`console CPU: ${n} open overview${n === 1 ? "" : "s"}, ${changes} changes 500 ms apart against the same time idle`);
    const streams = await streamsProcess(b, n, probe);
    await sleep(2_000);
    const idleMs = changes * 500;
    const c0 = treeCpuMs(b.server.pid);
    await sleep(idleMs);
    const c1 = treeCpuMs(b.server.pid);
    const commits: number[] = [];
    for (let i = 0; i < changes; i++) {
      commits.push(w.next().theirs);
      await sleep(500);
    }
    const c2 = treeCpuMs(b.server.pid);
    // The last changes still on their way to a loaded load process: counted, not lost.
    await sleep(3_000);
    const s = await streams.stop();
    const received = commits.filter((t) => s.arrivals[markerOf(Object.keys(s.arrivals), t) ?? ""]?.length === n).length;
    result[n] = { perChange: (c2 - c1 - (c1 - c0)) / changes, idlePerSecond: (c1 - c0) / (idleMs / 1000), received };
  }
  const one = result[1]!;
  const many = result[b.viewers]!;
  const ratio = many.perChange / one.perChange;
  b.figures.liveCpuPerChange = result;
  b.row(
    `console CPU per journal change, ${b.viewers} open overviews against 1`,
    "ratio ≤ 1.5",
    `${ms(many.perChange)} against ${ms(one.perChange)} a change (idle: ${ms(many.idlePerSecond)} against ${ms(one.idlePerSecond)} of CPU a second); every client got ${many.received} and ${one.received} of ${changes} changes`,
    ratio <= 1.5 && many.received === changes && one.received === changes,
    `×${ratio.toFixed(2)}`,
  );
}

/**
 * The bot writing 50 times a second, in `rounds` pairs of 15 s windows (default 6): one without
 * streams, one with `viewers` open overviews, the pair's order alternating (quiet first in even
 * rounds, streams first in odd ones) so a load that rises or falls across the run meets both sides
 * alike. Each round's streams connect and disconnect outside both windows (their writes are tagged
 * apart). The verdict is the median of the rounds' own p99 ratios: a window that someone else's
 * work on the machine hit moves one round, not the row. The ratio of the pooled p99s (every write
 * of each side) and the rounds' spread are printed beside it, with the load average, so a real
 * cost (every round over) is told from noise (one or two rounds far off, either way).
 */
export async function liveBotWrites(b: LiveBench, probe?: { bot: string; symbol: string }) {
  if (!probe) {
    const w = probeWriter(b.journal);
    probe = { bot: w.bot, symbol: w.symbol };
    w.close();
  }
  const streamsOn = probe;
  const { child, report } = await b.forkBot(b.journal);
  const phaseMs = 15_000;
  const rounds = Math.max(1, b.rounds ?? 6);
  const loadBefore = os.loadavg();
  const loads: number[] = [loadBefore[0]!];
  b.say(
    `the bot writes 50 times a second; ${rounds} rounds of ${phaseMs / 1000} s without and ${phaseMs / 1000} s with ${b.viewers} open overviews, in alternating order`,
  );
  const summaries: FleetSummary[] = [];
  await sleep(2_000);
  const quietWindow = async (round: number) => {
    child.send({ phase: `quiet ${round}` });
    await sleep(phaseMs);
    child.send({ phase: "between" });
  };
  const streamsWindow = async (round: number) => {
    child.send({ phase: "opening" });
    const streams = await streamsProcess(b, b.viewers, streamsOn);
    child.send({ phase: `streams ${round}` });
    await sleep(phaseMs);
    child.send({ phase: "after" });
    summaries.push(await streams.stop());
  };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      await quietWindow(round);
      await streamsWindow(round);
    } else {
      await streamsWindow(round);
      await quietWindow(round);
    }
    loads.push(os.loadavg()[0]!);
  }
  child.send({ phase: "done" });
  const r = await report();
  const loadAfter = os.loadavg();
  const of = (prefix: string) =>
    Object.entries(r.latencies)
      .filter(([k]) => k.startsWith(`${prefix} `))
      .flatMap(([, v]) => v);
  const quiet = of("quiet");
  const loaded = of("streams");
  const perRound = Array.from({ length: rounds }, (_, i) => {
    const q = quantile(r.latencies[`quiet ${i}`] ?? [], 0.99);
    const s = quantile(r.latencies[`streams ${i}`] ?? [], 0.99);
    return { quietP99: q, streamsP99: s, ratio: s / q, load: loads[i + 1]! };
  });
  const ratios = perRound.map((p) => p.ratio).sort((x, y) => x - y);
  const median = ratios.length % 2 === 1 ? ratios[(ratios.length - 1) / 2]! : (ratios[ratios.length / 2 - 1]! + ratios[ratios.length / 2]!) / 2;
  const over = ratios.filter((x) => x > 1.25).length;
  const consoleBusy = (b.server.output().match(/SQLITE_BUSY|database is locked/g) ?? []).length;
  const pooled = quantile(loaded, 0.99) / quantile(quiet, 0.99);
  const events = summaries.reduce((a, s) => a + s.events, 0);
  const dropped = summaries.reduce((a, s) => a + Object.values(s.ended).reduce((x, y) => x + y, 0), 0);
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(" ");
  b.figures.liveBotWrites = {
    quiet: { n: quiet.length, p50: quantile(quiet, 0.5), p99: quantile(quiet, 0.99) },
    streams: { n: loaded.length, p50: quantile(loaded, 0.5), p99: quantile(loaded, 0.99) },
    perRound,
    medianRatio: median,
    pooledRatio: pooled,
    roundsOver: over,
    loadAverage: { before: loadBefore, after: loadAfter },
    botBusy: r.busy,
    consoleBusy,
    events,
    dropped,
  };
  b.say(
    `bot writes per round (p99 with streams against without, 1-minute load after the round): ${perRound.map((p, i) => `${i % 2 === 0 ? "quiet first" : "streams first"} ${ms(p.streamsP99)}/${ms(p.quietP99)} ×${p.ratio.toFixed(2)} (load ${p.load.toFixed(1)})`).join(", ")}`,
  );
  b.say(`load average before ${load(loadBefore)}, after ${load(loadAfter)}`);
  b.say(
    `RATIO (bot write p99 with ${b.viewers} streams against none): median of ${rounds} rounds ×${median.toFixed(2)}, rounds ×${ratios[0]!.toFixed(2)} to ×${ratios.at(-1)!.toFixed(2)} (${over} of ${rounds} over ×1.25), pooled ×${pooled.toFixed(2)}`,
  );
  b.row(
    `bot journal-write p99, ${b.viewers} open overview streams against none`,
    "median round ratio ≤ 1.25, no SQLITE_BUSY",
    `median of ${rounds} rounds ×${median.toFixed(2)} (rounds ×${ratios[0]!.toFixed(2)}–×${ratios.at(-1)!.toFixed(2)}, ${over} over ×1.25); pooled p99 ${ms(quantile(loaded, 0.99))} against ${ms(quantile(quiet, 0.99))}, ×${pooled.toFixed(2)} (${loaded.length + quiet.length} writes); SQLITE_BUSY: bot ${r.busy}, console ${consoleBusy}; ${events.toLocaleString("en")} view events streamed, ${dropped} streams dropped; load average ${load(loadBefore)} → ${load(loadAfter)}`,
    median <= 1.25 && r.busy === 0 && consoleBusy === 0 && r.otherErrors === 0 && dropped === 0,
    `×${median.toFixed(2)}`,
  );
}

/** `holdStreams` streams for `holdSeconds`, a change every 2 s: the console's memory, and nothing lost. */
async function holdStreams(b: LiveBench, w: ReturnType<typeof probeWriter>, probe: { bot: string; symbol: string }) {
  const n = b.holdStreams;
  b.say(`${n.toLocaleString("en")} streams held for ${b.holdSeconds} s, a change every 2 s`);
  let rssMax = b.treeRssMb(b.server.pid);
  const rssTimer = setInterval(() => (rssMax = Math.max(rssMax, b.treeRssMb(b.server.pid))), 500);
  const opened = Date.now();
  const streams = await streamsProcess(b, n, probe);
  const openSeconds = (Date.now() - opened) / 1000;
  const commits: number[] = [];
  const end = Date.now() + b.holdSeconds * 1000;
  while (Date.now() < end) {
    commits.push(w.next().theirs);
    await sleep(2_000);
  }
  await sleep(2_000);
  const s = await streams.stop();
  clearInterval(rssTimer);
  const complete = commits.filter((t) => s.arrivals[markerOf(Object.keys(s.arrivals), t) ?? ""]?.length === n).length;
  const dropped = Object.values(s.ended).reduce((x, y) => x + y, 0);
  b.figures.liveHold = {
    streams: n,
    seconds: b.holdSeconds,
    openSeconds,
    rssMaxMb: rssMax,
    changes: commits.length,
    complete,
    summary: { ...s, arrivals: undefined },
  };
  b.row(
    `${n.toLocaleString("en")} overview streams held ${b.holdSeconds} s`,
    "RSS ≤ 400 MB, every client every change",
    `${rssMax.toFixed(0)} MB at most; ${complete} of ${commits.length} changes reached all ${s.live.toLocaleString("en")} live streams; ${dropped} dropped, ${s.failures} error views, longest silence ${ms(s.maxGapMs)}`,
    rssMax <= 400 && complete === commits.length && dropped === 0 && s.live === n && s.failures === 0,
  );
}
