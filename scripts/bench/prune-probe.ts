/**
 * Where the bot's write tail comes from while a prune runs: the bot (scripts/bench/bot-writes.ts,
 * 50 transactions a second, each timed as lock wait / statements / commit) writes on a copy of a
 * reference journal while prune settings take turns with idle stretches (idle, A, idle, B, idle, …,
 * for --rounds rounds), so the machine's noise falls on idle and pruning alike. Each turn runs the
 * prune in a process of its own for --turn seconds; the next turn resumes it at its cursor.
 *
 *   flock /tmp/driftwatch-bench.lock npx tsx scripts/bench/prune-probe.ts [--journal FILE] [--turn 8] [--rounds 2]
 *
 * Prints, per setting: writes, p50 / p99 of the whole write and p99 of each part, the share of
 * writes that waited over 1 ms for the lock, the largest WAL seen, and the load average.
 */
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { pruneJournal, type PruneOptions } from "../../lib/db/journal-prune";
import { quantile } from "../../tools/bench/http-load";
import { benchDir, root } from "../../tools/bench/reference";

type Setting = Pick<PruneOptions, "lockTargetMs" | "pauseMs" | "lockShare" | "checkpointEvery" | "syncWal"> & {
  /** The prune process's nice value (os.setPriority), as a background job would run it. */
  nice?: number;
};

/** The settings compared: the one shipped before issue 19's second pass, then one change at a time, then the default. */
const SETTINGS: Record<string, Setting> = {
  before: { lockTargetMs: 4, pauseMs: 10, checkpointEvery: 25 },
  small: { lockTargetMs: 1, pauseMs: 10, checkpointEvery: 25 },
  share: { lockTargetMs: 1, pauseMs: 5, lockShare: 0.1, checkpointEvery: 25 },
  ckpt: { lockTargetMs: 1, pauseMs: 5, lockShare: 0.1, checkpointEvery: 1 },
  sync: { lockTargetMs: 1, pauseMs: 5, lockShare: 0.1, checkpointEvery: 1, syncWal: true },
  sync05: { lockTargetMs: 0.5, pauseMs: 2, lockShare: 0.05, checkpointEvery: 1, syncWal: true },
  sync2: { lockTargetMs: 2, pauseMs: 5, lockShare: 0.1, checkpointEvery: 1, syncWal: true },
  // What lib/db/journal-prune.ts does by default (about sync05 without the sync, with the lock hold timed apart from its wait).
  final: {},
  // Issue 19's fourth pass: the third pass's default (with its own WAL sync) at nice 0 and 19, and
  // without the sync; the CLI now runs nice19nosync (the library default has no sync, the CLI nice 19).
  sync0: { syncWal: true },
  nice19: { nice: 19, syncWal: true },
  nosync: { syncWal: false },
  nice19nosync: { nice: 19, syncWal: false },
};

if (process.argv[2] === "--child") {
  // One turn: prune with the given setting until the time is up (after a committed batch), or to the end.
  const [, , , file, name, turnMs] = process.argv;
  const until = Date.now() + Number(turnMs);
  const { nice, ...setting } = SETTINGS[name!]!;
  if (nice !== undefined) os.setPriority(nice);
  const db = new Database(file!);
  db.pragma("busy_timeout = 5000");
  await pruneJournal({
    db,
    keepMs: 7 * 86_400_000,
    actor: "bench:probe",
    ...setting,
    onBatch: () => {
      if (Date.now() > until) {
        db.close();
        process.exit(0);
      }
    },
  });
  db.close();
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    journal: { type: "string", default: path.join(benchDir, "reference-20d.sqlite") },
    turn: { type: "string", default: "8" },
    rounds: { type: "string", default: "2" },
    only: { type: "string" },
  },
});
const turnMs = Number(values.turn) * 1000;
const names = values.only ? values.only.split(",") : Object.keys(SETTINGS);
const run = path.join(benchDir, "probe.run.sqlite");
for (const f of [run, `${run}-wal`, `${run}-shm`, `${run}.prune-lock`]) fs.rmSync(f, { force: true });
console.log(`probe: copying ${values.journal}`);
fs.copyFileSync(values.journal, run);

const bot = fork(path.join(root, "scripts/bench/bot-writes.ts"), [run, "20"], {
  execArgv: ["--import", "tsx"],
  stdio: ["ignore", "inherit", "inherit", "ipc"],
});
await new Promise<void>((resolve) => bot.once("message", () => resolve()));
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));
let walMax: Record<string, number> = {};
let phase = "warmup";
const sampler = setInterval(() => {
  const size = fs.existsSync(`${run}-wal`) ? fs.statSync(`${run}-wal`).size : 0;
  walMax[phase] = Math.max(walMax[phase] ?? 0, size);
}, 50);
const loads: number[] = [];
const setPhase = (p: string) => {
  phase = p;
  bot.send({ phase: p });
  loads.push(os.loadavg()[0]!);
};

await sleep(2000);
for (let r = 0; r < Number(values.rounds); r++) {
  for (const name of names) {
    setPhase("idle");
    await sleep(turnMs);
    setPhase(name);
    const child = fork(import.meta.filename, ["--child", run, name, String(turnMs)], { execArgv: ["--import", "tsx"], stdio: "inherit" });
    await new Promise((r2) => child.once("exit", r2));
  }
}
setPhase("idle");
await sleep(turnMs);
clearInterval(sampler);
bot.send({ stop: true });
const report = (await new Promise((resolve) => bot.once("message", resolve))) as {
  latencies: Record<string, number[]>;
  parts: Record<string, { lock: number[]; body: number[]; commit: number[] }>;
  busy: number;
  otherErrors: number;
};
const db = new Database(run, { readonly: true });
const done = db.prepare(`SELECT cycles_deleted, finished_at FROM journal_prunes ORDER BY id DESC LIMIT 1`).get();
db.close();
const f = (v: number) => v.toFixed(1).padStart(6);
const idleP99 = quantile(report.latencies.idle ?? [], 0.99);
console.log(
  `probe: load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}; ${report.busy} SQLITE_BUSY, ${report.otherErrors} other errors; prune ${JSON.stringify(done)}`,
);
console.log(`setting   writes  p50     p99  ×idle  lock99 body99 commit99  lock>1ms  walMax`);
for (const name of ["idle", ...names]) {
  const all = report.latencies[name] ?? [];
  const p = report.parts[name] ?? { lock: [], body: [], commit: [] };
  const waited = p.lock.filter((v) => v > 1).length / Math.max(1, p.lock.length);
  console.log(
    `${name.padEnd(8)} ${String(all.length).padStart(6)} ${f(quantile(all, 0.5))} ${f(quantile(all, 0.99))} ${(quantile(all, 0.99) / idleP99).toFixed(2).padStart(5)} ${f(quantile(p.lock, 0.99))} ${f(quantile(p.body, 0.99))} ${f(quantile(p.commit, 0.99))}  ${(waited * 100).toFixed(1).padStart(6)} %  ${((walMax[name] ?? 0) / 1e6).toFixed(1)} MB`,
  );
}
walMax = {};
