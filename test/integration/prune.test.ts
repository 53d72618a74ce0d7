/**
 * `npm run journal -- prune`: what goes, what stays, and what the console then says. Real journal
 * files migrated from drizzle/, the CLI in its own process, and a bot writing beside it from another.
 */
import { fork, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { verifyAuditLog } from "@/lib/audit/log";
import { NO_BOT_PACE, pruneJournal } from "@/lib/db/journal-prune";
import { INCIDENT_MARGIN_MS, ROLLUP_MS } from "@/lib/journal/retention";
import { getIncidentTimeline } from "@/lib/queries/incidents";
import { getSymbolChart } from "@/lib/queries/symbol-chart";
import { INCIDENT_KINDS } from "@/lib/url-state/incidents";
import { consoleDb } from "../helpers/console-db";
import { repoRoot } from "../helpers/journal";
import { AUDIT_KEY, pruneFixtureJournal, type PruneFixture } from "../helpers/prune-journal";
import { CAUSE_ORDER, NEARBY_ORDER, prunedIncidentJournal } from "../helpers/pruned-incident";

const DAY = 86_400_000;
const open = (file: string) => {
  const db = new Database(file, { timeout: 5000 });
  db.pragma("busy_timeout = 5000");
  return db;
};

/**
 * Waits, when the clock is within 30 s of a five-minute boundary, until it has passed: a prune's
 * horizons are floored to one, so a dry run and a run either side of it compare horizons two
 * cycles apart (a CI run at 22:09:59 UTC did: "would delete 9,767", then "deleted 9,769").
 */
async function clearOfHorizonBoundary() {
  const toBoundary = ROLLUP_MS - (Date.now() % ROLLUP_MS);
  if (toBoundary < 30_000) await new Promise((r) => setTimeout(r, toBoundary + 1_000));
}

function cli(args: string[]) {
  return spawnSync(path.join(repoRoot, "node_modules/.bin/tsx"), [path.join(repoRoot, "scripts/journal.ts"), ...args], { cwd: repoRoot, encoding: "utf8" });
}

/** Every table a prune must leave exactly as it was. */
const KEPT_TABLES = [
  "orders",
  "order_events",
  "breakers",
  "breaker_events",
  "bots",
  "audit_log",
  "drift_acknowledgements",
  "book_corrections",
  "latest_positions",
  "position_rollups",
  "cycle_rollups",
];
function keptTables(file: string): Record<string, unknown[]> {
  const db = open(file);
  try {
    return Object.fromEntries(KEPT_TABLES.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2, 3`).raw().all()]));
  } finally {
    db.close();
  }
}

const cycles = (file: string) => {
  const db = open(file);
  try {
    return db.prepare(`SELECT id, bot_id AS botId, at FROM reconciliations ORDER BY id`).all() as { id: number; botId: string; at: string }[];
  } finally {
    db.close();
  }
};
const scalar = (file: string, sql: string) => {
  const db = open(file);
  try {
    return db.prepare(sql).pluck().get();
  } finally {
    db.close();
  }
};
const copyOf = (file: string, name: string) => {
  const copy = path.join(path.dirname(file), name);
  const db = open(file);
  db.prepare(`VACUUM INTO ?`).run(copy);
  db.close();
  return copy;
};

describe("npm run journal -- prune", () => {
  let fx: PruneFixture;
  let before: { id: number; botId: string; at: string }[];
  let keptBefore: Record<string, unknown[]>;
  let pristine: string;
  let horizon: number;
  let out: string;

  beforeAll(async () => {
    fx = pruneFixtureJournal(open);
    pristine = copyOf(fx.file, "pristine.db");
    before = cycles(fx.file);
    keptBefore = keptTables(fx.file);
    await clearOfHorizonBoundary();
    const dry = cli(["prune", fx.file, "--keep", "30d", "--dry-run"]);
    expect(dry.status, dry.stderr).toBe(0);
    expect(cycles(fx.file)).toEqual(before);
    const wouldGo = Number(/would delete ([\d,]+) cycles/.exec(dry.stdout)?.[1]?.replaceAll(",", ""));
    const run = cli(["prune", fx.file, "--keep", "30d", "--by", "cli:test", "--no-bot"]);
    expect(run.status, run.stderr).toBe(0);
    out = run.stdout;
    expect(Number(/deleted ([\d,]+) cycles/.exec(out)?.[1]?.replaceAll(",", ""))).toBe(wouldGo);
    horizon = Date.parse(scalar(fx.file, `SELECT horizon FROM journal_prunes`) as string);
    // Three CLI runs (tsx starts each) on a shared 2-core machine.
  }, 300_000);
  afterAll(() => fs.rmSync(path.dirname(fx.file), { recursive: true, force: true }));

  it("deletes the cycles older than the horizon outside incidents, and their positions with them", () => {
    const after = cycles(fx.file);
    expect(after.length).toBeLessThan(before.length);
    expect(Math.abs(horizon - (fx.now - 30 * DAY))).toBeLessThan(ROLLUP_MS);
    // alpha outside its incident window, 32 to 35 days ago: gone.
    const alphaGap = after.filter((c) => c.botId === "alpha" && Date.parse(c.at) > fx.alphaClear + 2 * INCIDENT_MARGIN_MS && Date.parse(c.at) < horizon);
    expect(alphaGap.map((c) => c.id).filter((id) => !fx.pinned.includes(id))).toEqual([]);
    expect(scalar(fx.file, `SELECT count(*) FROM reconciliation_positions WHERE reconciliation_id NOT IN (SELECT id FROM reconciliations)`)).toBe(0);
    const row = open(fx.file);
    const prune = row.prepare(`SELECT * FROM journal_prunes`).get() as Record<string, unknown>;
    row.close();
    expect(prune).toMatchObject({ actor: "cli:test", cycles_deleted: before.length - after.length, keep_ms: 30 * DAY });
    expect(prune.finished_at).not.toBeNull();
  });

  it("keeps every cycle newer than the horizon", () => {
    const newer = (list: typeof before) => list.filter((c) => Date.parse(c.at) >= horizon);
    expect(newer(cycles(fx.file))).toEqual(newer(before));
    expect(newer(before).length).toBeGreaterThan(20_000);
  });

  it("keeps every incident window cycle by cycle: an hour before the trip to an hour after the clear, and an open one to now", () => {
    const after = new Set(cycles(fx.file).map((c) => c.id));
    const alphaWindow = before.filter(
      (c) => c.botId === "alpha" && Date.parse(c.at) >= fx.alphaTrip - INCIDENT_MARGIN_MS && Date.parse(c.at) <= fx.alphaClear + INCIDENT_MARGIN_MS,
    );
    expect(alphaWindow.length).toBeGreaterThanOrEqual(60);
    expect(alphaWindow.filter((c) => !after.has(c.id))).toEqual([]);
    const betaOpen = before.filter((c) => c.botId === "beta" && Date.parse(c.at) >= fx.betaTrip - INCIDENT_MARGIN_MS);
    expect(betaOpen.filter((c) => !after.has(c.id))).toEqual([]);
    // The positions of a kept cycle are all there.
    const db = open(fx.file);
    const p = db.prepare(`SELECT count(*) FROM reconciliation_positions WHERE reconciliation_id = ?`).pluck();
    expect(alphaWindow.map((c) => p.get(c.id))).toEqual(alphaWindow.map(() => 3));
    db.close();
  });

  it("keeps the cycles other rows name, orders, breaker events, operator tables and rollups exactly as they were; the audit chain still verifies", () => {
    const after = new Set(cycles(fx.file).map((c) => c.id));
    expect(fx.pinned.filter((id) => !after.has(id))).toEqual([]);
    expect(keptTables(fx.file)).toEqual(keptBefore);
    const db = open(fx.file);
    const check = verifyAuditLog(db, AUDIT_KEY);
    db.close();
    expect(check).toMatchObject({ ok: true, entries: 3 });
  });

  it("draws a pruned window from the rollups and says when its detail was pruned; an incident window says nothing", () => {
    const { db, close } = consoleDb(fx.file);
    try {
      const startedAt = scalar(fx.file, `SELECT started_at FROM journal_prunes`) as string;
      const range = {
        kind: "custom" as const,
        from: new Date(fx.quietDrift.from - 3_600_000).toISOString(),
        to: new Date(fx.quietDrift.to + 3_600_000).toISOString(),
      };
      const chart = getSymbolChart({ db, botId: "alpha", symbol: "S2", range, now: new Date(fx.now) });
      expect(chart.pruned).toMatchObject({ prunedOn: startedAt, interrupted: false });
      // Not an empty stretch: the rollups' lines, and the drift the cycles no longer show.
      expect(chart.points.length).toBeGreaterThan(20);
      expect(chart.episodes.map((e) => [e.kind, e.from <= fx.quietDrift.from + ROLLUP_MS, e.to >= fx.quietDrift.to - ROLLUP_MS])).toEqual([
        ["size_drift", true, true],
      ]);

      const { db: pristineDb, close: closePristine } = consoleDb(pristine);
      const whole = { kind: "custom" as const, from: new Date(fx.now - 40 * DAY).toISOString(), to: new Date(fx.now).toISOString() };
      const was = getSymbolChart({ db: pristineDb, botId: "alpha", symbol: "S2", range: whole, now: new Date(fx.now) });
      closePristine();
      const is = getSymbolChart({ db, botId: "alpha", symbol: "S2", range: whole, now: new Date(fx.now) });
      expect(is.pruned).not.toBeNull();
      expect(is.episodes.map((e) => e.kind)).toEqual(was.episodes.map((e) => e.kind));

      const incident = {
        kind: "custom" as const,
        from: new Date(fx.alphaTrip - 30 * 60_000).toISOString(),
        to: new Date(fx.alphaClear + 30 * 60_000).toISOString(),
      };
      const kept = getSymbolChart({ db, botId: "alpha", symbol: "S1", range: incident, now: new Date(fx.now) });
      expect(kept.pruned).toBeNull();
      expect(kept.samples).toBe(before.filter((c) => c.botId === "alpha" && c.at >= incident.from && c.at <= incident.to).length);

      const timeline = getIncidentTimeline({
        db,
        window: { from: range.from, to: range.to },
        filters: { bot: "alpha", kinds: [...INCIDENT_KINDS] },
      });
      expect(timeline.pruned?.prunedOn).toBe(startedAt);
      expect(
        getIncidentTimeline({ db, window: { from: incident.from, to: incident.to }, filters: { bot: "alpha", kinds: [...INCIDENT_KINDS] } }).pruned,
      ).toBeNull();
    } finally {
      close();
    }
  });

  it("reports the write lock it held and the space it freed for reuse", () => {
    expect(out).toMatch(/write lock held at most [\d.]+ ms/);
    expect(Number(scalar(fx.file, `PRAGMA freelist_count`))).toBeGreaterThan(0);
  });

  it("refuses a horizon under a day or a word for one, changing nothing", () => {
    for (const keep of ["6h", "soon", "30"]) {
      const r = cli(["prune", pristine, "--keep", keep, "--no-bot"]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/--keep/);
    }
    expect(scalar(pristine, `SELECT count(*) FROM journal_prunes`)).toBe(0);
  });
});

describe("a prune killed midway", () => {
  it("leaves a consistent journal that says so, and a rerun resumes and ends where one run would, while a bot writes throughout", async () => {
    const fx = pruneFixtureJournal(open);
    const untouched = copyOf(fx.file, "untouched.db");
    const reference = copyOf(fx.file, "reference.db");
    const refRun = cli(["prune", reference, "--keep", "30d", "--no-bot"]);
    expect(refRun.status, refRun.stderr).toBe(0);

    // A bot writing 50 transactions a second beside the prune, in its own process.
    const bot = fork(path.join(repoRoot, "scripts/bench/bot-writes.ts"), [fx.file, "20"], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    await new Promise<void>((resolve) => bot.once("message", () => resolve()));
    // A failed expectation must not leave the bot writing after the test.
    onTestFinished(() => void (bot.exitCode === null && bot.kill("SIGKILL")));

    const child = fork(path.join(repoRoot, "scripts/journal.ts"), ["prune", fx.file, "--keep", "30d"], { execArgv: ["--import", "tsx"], stdio: "ignore" });
    const watch = open(fx.file);
    const progress = watch.prepare(`SELECT cycles_deleted FROM journal_prunes`).pluck();
    const deadline = Date.now() + 30_000;
    while (((progress.get() as number | undefined) ?? 0) < 500 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    watch.close();

    const killed = open(fx.file);
    const row = killed.prepare(`SELECT finished_at AS finishedAt, cycles_deleted AS deleted, cursor FROM journal_prunes`).get() as {
      finishedAt: string | null;
      deleted: number;
      cursor: number;
    };
    expect(row.finishedAt).toBeNull();
    expect(row.deleted).toBeGreaterThanOrEqual(500);
    expect(killed.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(killed.prepare(`SELECT count(*) FROM reconciliation_positions WHERE reconciliation_id NOT IN (SELECT id FROM reconciliations)`).pluck().get()).toBe(
      0,
    );
    // The record counts exactly what went: a batch's deletes and its count commit together.
    const ourCycles = killed.prepare(`SELECT count(*) FROM reconciliations WHERE bot_id <> 'benchbot'`).pluck().get() as number;
    killed.close();
    const oneRunDeleted = scalar(reference, `SELECT cycles_deleted FROM journal_prunes`) as number;
    expect(ourCycles + row.deleted).toBe(cycles(reference).length + oneRunDeleted);
    const { db, close } = consoleDb(fx.file);
    const mid = getSymbolChart({
      db,
      botId: "alpha",
      symbol: "S2",
      range: { kind: "custom", from: new Date(fx.quietDrift.from - 3_600_000).toISOString(), to: new Date(fx.quietDrift.to + 3_600_000).toISOString() },
      now: new Date(fx.now),
    });
    close();
    expect(mid.pruned?.interrupted).toBe(true);

    // At --no-bot pace to keep the test short; its 20 ms batches stay far under the bot's 5 s busy timeout.
    const rerun = cli(["prune", fx.file, "--keep", "30d", "--no-bot"]);
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(rerun.stdout).toMatch(/resumed a stopped prune/);

    bot.send({ stop: true });
    const report = await new Promise<{ busy: number; otherErrors: number; latencies: Record<string, number[]> }>((resolve) =>
      bot.once("message", resolve as never),
    );
    expect(report).toMatchObject({ busy: 0, otherErrors: 0 });
    expect(Object.values(report.latencies).flat().length).toBeGreaterThan(20);

    // One uninterrupted run now: the horizon sits on a five-minute boundary of the clock, and a
    // slow machine can carry this test across one since the first reference run.
    const oneRun = copyOf(untouched, "one-run.db");
    expect(cli(["prune", oneRun, "--keep", "30d", "--no-bot"]).status).toBe(0);
    const ours = cycles(fx.file).filter((c) => c.botId !== "benchbot");
    expect(ours.map((c) => c.id)).toEqual(cycles(oneRun).map((c) => c.id));
    const final = open(fx.file);
    const record = final.prepare(`SELECT count(*) AS runs, sum(cycles_deleted) AS deleted, min(finished_at) AS finished FROM journal_prunes`).get() as {
      runs: number;
      deleted: number;
      finished: string | null;
    };
    final.close();
    expect(record.runs).toBe(1);
    expect(record.finished).not.toBeNull();
    expect(record.deleted).toBe(scalar(oneRun, `SELECT cycles_deleted FROM journal_prunes`));
    fs.rmSync(path.dirname(fx.file), { recursive: true, force: true });
  }, 300_000);

  it("a second prune started while one runs refuses and changes nothing; once the first is killed the next run is free and resumes it", async () => {
    const fx = pruneFixtureJournal(open);
    const first = fork(path.join(repoRoot, "scripts/journal.ts"), ["prune", fx.file, "--keep", "30d", "--by", "cli:first"], {
      execArgv: ["--import", "tsx"],
      stdio: "ignore",
    });
    onTestFinished(() => void (first.exitCode === null && first.kill("SIGKILL")));
    const watch = open(fx.file);
    const progress = watch.prepare(`SELECT cycles_deleted FROM journal_prunes`).pluck();
    const deadline = Date.now() + 60_000;
    while (((progress.get() as number | undefined) ?? 0) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    // Stopped, not killed: the first prune is still running (its lock held) whatever the machine's speed.
    first.kill("SIGSTOP");
    const snapshot = watch.prepare(`SELECT id, cursor, cycles_deleted, actor, finished_at FROM journal_prunes`).all();
    expect(snapshot).toHaveLength(1);
    const cyclesThen = watch.prepare(`SELECT count(*) FROM reconciliations`).pluck().get() as number;

    const second = cli(["prune", fx.file, "--keep", "30d", "--by", "cli:second"]);
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/another prune is running on .*by cli:first.*nothing was changed/);
    expect(watch.prepare(`SELECT id, cursor, cycles_deleted, actor, finished_at FROM journal_prunes`).all()).toEqual(snapshot);
    expect(watch.prepare(`SELECT count(*) FROM reconciliations`).pluck().get()).toBe(cyclesThen);
    // Reading what would go takes no lock, and says a prune is running. Run from another checkout's
    // folder (an older drizzle/ there, one migration short), it still compares the journal with
    // its own migrations, not with that folder's (issue 19's try-out: "newer than this driftwatch
    // knows (6)" from a dry run started in an older clone while a prune ran).
    const elsewhere = path.join(path.dirname(fx.file), "older-clone");
    fs.mkdirSync(path.join(elsewhere, "drizzle"), { recursive: true });
    for (const f of fs
      .readdirSync(path.join(repoRoot, "drizzle"))
      .filter((f) => f.endsWith(".sql"))
      .sort()
      .slice(0, -1)) {
      fs.copyFileSync(path.join(repoRoot, "drizzle", f), path.join(elsewhere, "drizzle", f));
    }
    const dry = spawnSync(
      path.join(repoRoot, "node_modules/.bin/tsx"),
      [path.join(repoRoot, "scripts/journal.ts"), "prune", fx.file, "--keep", "30d", "--dry-run"],
      {
        cwd: elsewhere,
        encoding: "utf8",
      },
    );
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/another prune is running on it \(started .* by cli:first, at reconciliation \d+\)/);
    expect(dry.stdout).toMatch(/would delete [\d,]+ cycles/);
    expect(watch.prepare(`SELECT id, cursor, cycles_deleted, actor, finished_at FROM journal_prunes`).all()).toEqual(snapshot);

    // Killed, the first prune's lock goes with its process: the next run is free and resumes it.
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    const next = cli(["prune", fx.file, "--keep", "30d", "--by", "cli:next", "--no-bot"]);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/resumed a stopped prune/);
    const record = watch.prepare(`SELECT count(*) AS runs, count(finished_at) AS finished, max(actor) AS actor FROM journal_prunes`).get();
    expect(record).toMatchObject({ runs: 1, finished: 1, actor: "cli:next" });
    watch.close();
    fs.rmSync(path.dirname(fx.file), { recursive: true, force: true });
  }, 300_000);

  it("prints progress lines on stderr; SIGTERM stops it after the current batch, says where, exits 143, and the same command resumes", async () => {
    const fx = pruneFixtureJournal(open);
    const args = ["prune", fx.file, "--keep", "30d", "--by", "cli:signal", "--progress", "0.05"];
    const child = fork(path.join(repoRoot, "scripts/journal.ts"), args, { execArgv: ["--import", "tsx"], stdio: ["ignore", "pipe", "pipe", "ipc"] });
    onTestFinished(() => void (child.exitCode === null && child.kill("SIGKILL")));
    let stderr = "";
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    await new Promise<void>((resolve) => {
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/reconciliations [\d,]+ of [\d,]+ \(\d+ %\), [\d,]+ a second/.test(stderr)) resolve();
      });
    });
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    const stopped = /stopped at reconciliation (\d+); run the same command again to resume/.exec(stderr);
    expect(stopped, stderr).not.toBeNull();
    const record = scalar(fx.file, `SELECT json_object('cursor', cursor, 'finished', finished_at) FROM journal_prunes`) as string;
    expect(JSON.parse(record)).toEqual({ cursor: Number(stopped![1]), finished: null });
    const next = cli([...args.slice(0, 6), "--no-bot"]);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/resumed a stopped prune/);
    fs.rmSync(path.dirname(fx.file), { recursive: true, force: true });
  }, 300_000);
});

/** Per bot, symbol and hour: the five-minute rollups summed and at their extremes, as the folded row must be. */
function hourlyOf(file: string, before: string) {
  const db = open(file);
  try {
    return db
      .prepare(
        `SELECT bot_id, symbol, substr(bucket, 1, 13) AS hour, sum(cycles) AS cycles, sum(drift_cycles) AS drift, sum(unknown_cycles) AS unknown,
                min(first_at) AS first_at, max(last_at) AS last_at, min(min_ours) AS min_ours, max(max_ours) AS max_ours,
                min(min_theirs) AS min_theirs, max(max_theirs) AS max_theirs, max(abs(wide_ours - wide_theirs)) AS widest,
                min(first_drift_at) AS first_drift_at, max(last_drift_at) AS last_drift_at
         FROM position_rollups WHERE bucket < ? GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      )
      .all(before);
  } finally {
    db.close();
  }
}

describe("the second horizons: --keep-incidents, --keep-orders, --keep-rollups", () => {
  let fx: PruneFixture;
  let pristine: string;
  let out: string;
  let record: { incidentHorizon: string; orderHorizon: string; rollupHorizon: string; ordersDeleted: number; rollupsFolded: number; startedAt: string };
  const flags = ["--keep", "30d", "--keep-incidents", "34d", "--keep-orders", "34d", "--keep-rollups", "34d"];

  beforeAll(async () => {
    fx = pruneFixtureJournal(open);
    // An old order an operator acted on: it stays whatever its age.
    const db = open(fx.file);
    db.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES ('ord-24', ?, 'operator', 'operator:ana', '{}')`).run(
      new Date(fx.now - 39 * DAY).toISOString(),
    );
    db.close();
    pristine = copyOf(fx.file, "pristine-horizons.db");
    await clearOfHorizonBoundary();
    const dry = cli(["prune", fx.file, ...flags, "--dry-run"]);
    expect(dry.status, dry.stderr).toBe(0);
    expect(keptTables(fx.file)).toEqual(keptTables(pristine));
    const run = cli(["prune", fx.file, ...flags, "--no-bot"]);
    expect(run.status, run.stderr).toBe(0);
    out = run.stdout;
    // The dry run said what the run did.
    for (const re of [
      /deleted ([\d,]+) cycles/,
      /settled orders last updated before \d{4}-\d\d-\d\d \d\d:\d\d UTC: ([\d,]+) with/,
      /: ([\d,]+) rows were folded/,
    ]) {
      const wouldRe = new RegExp(re.source.replace("deleted", "would delete").replace("were", "would be"));
      expect(wouldRe.exec(dry.stdout)?.[1], `${re}: ${dry.stdout}`).toBe(re.exec(out)?.[1]);
    }
    record = open(fx.file)
      .prepare(
        `SELECT incident_horizon AS incidentHorizon, order_horizon AS orderHorizon, rollup_horizon AS rollupHorizon, orders_deleted AS ordersDeleted,
                rollups_folded AS rollupsFolded, started_at AS startedAt FROM journal_prunes`,
      )
      .get() as typeof record;
  }, 300_000);
  afterAll(() => fs.rmSync(path.dirname(fx.file), { recursive: true, force: true }));

  it("records each horizon, on the hour for the rollups, and prints them all alike", () => {
    for (const h of [
      /older than (.+?)\n/,
      /incident windows that ended before (.+? UTC):/,
      /settled orders last updated before (.+? UTC): /,
      /five-minute rollups before (.+? UTC):/,
    ])
      expect(h.exec(out)?.[1], `${h}: ${out}`).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(out).toMatch(/\n {2}[\d,]+ older cycles kept: \d+ incident windows? still inside --keep-incidents, plus cycles other rows point to\n/);
    expect(Math.abs(Date.parse(record.incidentHorizon) - (fx.now - 34 * DAY))).toBeLessThan(ROLLUP_MS);
    expect(Math.abs(Date.parse(record.orderHorizon) - (fx.now - 34 * DAY))).toBeLessThan(ROLLUP_MS);
    expect(Date.parse(record.orderHorizon) % ROLLUP_MS).toBe(0);
    expect(Date.parse(record.rollupHorizon) % 3_600_000).toBe(0);
    expect(record.ordersDeleted).toBeGreaterThan(0);
    expect(record.rollupsFolded).toBeGreaterThan(0);
  });

  it("prunes the cycles of an incident that ended before --keep-incidents; keeps an open one and the breaker events", () => {
    const after = new Set(cycles(fx.file).map((c) => c.id));
    const alphaWindow = cycles(pristine).filter(
      (c) => c.botId === "alpha" && Date.parse(c.at) >= fx.alphaTrip - INCIDENT_MARGIN_MS && Date.parse(c.at) <= fx.alphaClear + INCIDENT_MARGIN_MS,
    );
    expect(alphaWindow.filter((c) => after.has(c.id) && !fx.pinned.includes(c.id)).length).toBeLessThanOrEqual(1);
    const betaOpen = cycles(pristine).filter((c) => c.botId === "beta" && Date.parse(c.at) >= fx.betaTrip - INCIDENT_MARGIN_MS);
    expect(betaOpen.filter((c) => !after.has(c.id))).toEqual([]);
    expect(fx.pinned.filter((id) => !after.has(id))).toEqual([]);
    const kept = keptTables(fx.file);
    const was = keptTables(pristine);
    for (const t of ["breakers", "breaker_events", "bots", "audit_log", "drift_acknowledgements", "book_corrections", "latest_positions"])
      expect(kept[t], t).toEqual(was[t]);
    const db = open(fx.file);
    expect(verifyAuditLog(db, AUDIT_KEY)).toMatchObject({ ok: true, entries: 3 });
    db.close();
  });

  it("deletes settled orders older than --keep-orders with their events; keeps newer ones and one an operator acted on, exactly", () => {
    const orders = (file: string) =>
      open(file).prepare(`SELECT * FROM orders ORDER BY client_order_id`).all() as { client_order_id: string; updated_at: string }[];
    const events = (file: string) => open(file).prepare(`SELECT * FROM order_events ORDER BY id`).all() as { client_order_id: string }[];
    const was = orders(pristine);
    const all = orders(fx.file);
    const is = all.filter((o) => !o.client_order_id.startsWith("pruned:"));
    const keep = (o: { client_order_id: string; updated_at: string }) => o.updated_at >= record.orderHorizon || o.client_order_id === "ord-24";
    expect(is).toEqual(was.filter(keep));
    expect(was.length - is.length).toBe(record.ordersDeleted);
    // Every bot's book (the sum of its fills, as both writers read it) is what it was: the pruned
    // orders' fills are carried by one order per bot, symbol, strategy and side.
    expect(all.length - is.length).toBeGreaterThan(0);
    const book = (file: string) =>
      open(file)
        .prepare(
          `SELECT bot_id, symbol, sum(CASE side WHEN 'buy' THEN filled_qty ELSE -filled_qty END) AS size FROM orders WHERE strategy <> 'reconcile' GROUP BY 1, 2 ORDER BY 1, 2`,
        )
        .all() as { size: number }[];
    const bookWas = book(pristine);
    expect(book(fx.file).map((r) => ({ ...r, size: Math.round(r.size * 1e9) }))).toEqual(bookWas.map((r) => ({ ...r, size: Math.round(r.size * 1e9) })));
    const ids = new Set(is.map((o) => o.client_order_id));
    expect(events(fx.file)).toEqual(events(pristine).filter((e) => ids.has(e.client_order_id)));
  });

  it("folds the five-minute rollups before --keep-rollups into one row per hour that sums and bounds them; keeps the later ones exactly", () => {
    const db = open(fx.file);
    const notOnHour = db.prepare(`SELECT count(*) FROM position_rollups WHERE bucket < ? AND substr(bucket, 15, 2) <> '00'`).pluck().get(record.rollupHorizon);
    const cycNotOnHour = db.prepare(`SELECT count(*) FROM cycle_rollups WHERE bucket < ? AND substr(bucket, 15, 2) <> '00'`).pluck().get(record.rollupHorizon);
    const cycSums = (d: Database.Database) =>
      d
        .prepare(`SELECT bot_id, substr(bucket, 1, 13) AS hour, sum(cycles) FROM cycle_rollups WHERE bucket < ? GROUP BY 1, 2 ORDER BY 1, 2`)
        .raw()
        .all(record.rollupHorizon);
    const p = open(pristine);
    expect(cycSums(db)).toEqual(cycSums(p));
    const later = (d: Database.Database, t: string) => d.prepare(`SELECT * FROM ${t} WHERE bucket >= ? ORDER BY 1, 2, 3`).raw().all(record.rollupHorizon);
    expect(later(db, "position_rollups")).toEqual(later(p, "position_rollups"));
    expect(later(db, "cycle_rollups")).toEqual(later(p, "cycle_rollups"));
    p.close();
    db.close();
    expect([notOnHour, cycNotOnHour]).toEqual([0, 0]);
    expect(hourlyOf(fx.file, record.rollupHorizon)).toEqual(hourlyOf(pristine, record.rollupHorizon));
  });

  it("says what it no longer has: the pruned incident, the hourly rollups and the orders, each with its date", () => {
    const { db, close } = consoleDb(fx.file);
    try {
      const incident = {
        kind: "custom" as const,
        from: new Date(fx.alphaTrip - 30 * 60_000).toISOString(),
        to: new Date(fx.alphaClear + 30 * 60_000).toISOString(),
      };
      const chart = getSymbolChart({ db, botId: "alpha", symbol: "S1", range: incident, now: new Date(fx.now) });
      expect(chart.pruned).toMatchObject({
        incidentHorizon: record.incidentHorizon,
        incidentPruned: { before: record.incidentHorizon, on: record.startedAt },
        hourly: { before: record.rollupHorizon, on: record.startedAt },
        orders: { before: record.orderHorizon, on: record.startedAt },
      });
      // Drawn from the hourly rollups: the incident's drift is still there.
      expect(chart.episodes.map((e) => e.kind)).toContain("size_drift");
      const timeline = getIncidentTimeline({ db, window: { from: incident.from, to: incident.to }, filters: { bot: "alpha", kinds: [...INCIDENT_KINDS] } });
      expect(timeline.pruned?.incidentPruned?.on).toBe(record.startedAt);
      // The trip and the clear stay.
      expect(timeline.events.filter((e) => e.source === "breaker").map((e) => e.kind)).toEqual(["trip", "clear"]);
      // The whole 40 days: the same drift episodes as before the prune.
      const { db: pristineDb, close: closePristine } = consoleDb(pristine);
      const whole = { kind: "custom" as const, from: new Date(fx.now - 40 * DAY).toISOString(), to: new Date(fx.now).toISOString() };
      const was = getSymbolChart({ db: pristineDb, botId: "alpha", symbol: "S1", range: whole, now: new Date(fx.now) });
      closePristine();
      const is = getSymbolChart({ db, botId: "alpha", symbol: "S1", range: whole, now: new Date(fx.now) });
      expect(is.episodes.map((e) => e.kind)).toEqual(was.episodes.map((e) => e.kind));
      // After every horizon: nothing to say.
      const recent = { kind: "custom" as const, from: new Date(fx.now - 2 * DAY).toISOString(), to: new Date(fx.now).toISOString() };
      expect(getSymbolChart({ db, botId: "alpha", symbol: "S1", range: recent, now: new Date(fx.now) }).pruned).toBeNull();
    } finally {
      close();
    }
  });

  it("a kept incident older than --keep-rollups is drawn cycle by cycle, and says its rollups there are hourly", async () => {
    const file = copyOf(pristine, "kept-incident-hourly.db");
    const db = open(file);
    await pruneJournal({ db, keepMs: 30 * DAY, keepIncidentsMs: 39 * DAY, keepRollupsMs: 34 * DAY, actor: "test", ...NO_BOT_PACE });
    db.close();
    const { db: c, close } = consoleDb(file);
    try {
      const incident = {
        kind: "custom" as const,
        from: new Date(fx.alphaTrip - 30 * 60_000).toISOString(),
        to: new Date(fx.alphaClear + 30 * 60_000).toISOString(),
      };
      const chart = getSymbolChart({ db: c, botId: "alpha", symbol: "S1", range: incident, now: new Date(fx.now) });
      expect(chart.pruned).toMatchObject({ spans: [], incidentPruned: null, hourly: { on: expect.any(String) } });
      expect(chart.samples).toBe(cycles(pristine).filter((r) => r.botId === "alpha" && r.at >= incident.from && r.at <= incident.to).length);
    } finally {
      close();
    }
  });

  it("refuses a second horizon shorter than --keep, or not a duration, changing nothing", () => {
    for (const bad of [
      ["--keep-incidents", "7d"],
      ["--keep-rollups", "29d"],
      ["--keep-orders", "soon"],
    ]) {
      const r = cli(["prune", pristine, "--keep", "30d", ...bad, "--no-bot"]);
      expect(r.status, r.stdout).toBe(2);
      expect(r.stderr).toContain(bad[0]);
    }
    expect(scalar(pristine, `SELECT count(*) FROM journal_prunes`)).toBe(0);
  });

  it("stopped in its orders or its folding, leaves every order whole and every hour five-minute or hourly, and a rerun ends where one run would", async () => {
    const oneRun = copyOf(pristine, "one-run-horizons.db");
    const now = new Date();
    const opts = { keepMs: 30 * DAY, keepIncidentsMs: 34 * DAY, keepOrdersMs: 34 * DAY, keepRollupsMs: 34 * DAY, actor: "test", now, ...NO_BOT_PACE };
    const ref = open(oneRun);
    await pruneJournal({ db: ref, ...opts });
    ref.close();
    for (const phase of ["orders", "rollups"] as const) {
      const file = copyOf(pristine, `stopped-${phase}.db`);
      const db = open(file);
      let n = 0;
      await expect(
        pruneJournal({
          db,
          ...opts,
          onBatch: (b) => {
            if (b.phase === phase && ++n === 2) throw new Error("stopped");
          },
        }),
      ).rejects.toThrow("stopped");
      expect(db.prepare(`SELECT finished_at FROM journal_prunes`).pluck().get()).toBeNull();
      expect(db.prepare(`SELECT count(*) FROM order_events WHERE client_order_id NOT IN (SELECT client_order_id FROM orders)`).pluck().get()).toBe(0);
      // Every hour folded whole or not at all: each hour's sums and extremes are what they were.
      const horizon = db.prepare(`SELECT rollup_horizon FROM journal_prunes`).pluck().get() as string;
      expect(hourlyOf(file, horizon)).toEqual(hourlyOf(pristine, horizon));
      const report = await pruneJournal({ db, ...opts });
      expect(report.resumed).toBe(true);
      db.close();
      for (const t of ["orders", "order_events", "position_rollups", "cycle_rollups", "reconciliations"])
        expect(open(file).prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).raw().all(), `${phase}: ${t}`).toEqual(
          open(oneRun).prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).raw().all(),
        );
    }
  }, 300_000);
});

describe("the order a trip names", () => {
  it("is kept for good with its events however old, like rows other tables name; an order of the same pruned window that nothing names goes", async () => {
    const fx = await prunedIncidentJournal();
    onTestFinished(() => fs.rmSync(path.dirname(fx.file), { recursive: true, force: true }));
    const db = open(fx.file);
    try {
      expect(fx.report.orderHorizon! > new Date(fx.now - 3 * DAY + 3_600_000).toISOString()).toBe(true);
      expect(db.prepare(`SELECT client_order_id FROM orders WHERE client_order_id NOT LIKE 'pruned:%' ORDER BY 1`).pluck().all()).toEqual([CAUSE_ORDER]);
      expect(db.prepare(`SELECT kind FROM order_events WHERE client_order_id = ? ORDER BY id`).pluck().all(CAUSE_ORDER)).toEqual([
        "intent",
        "send",
        "timeout",
        "lookup_absent",
      ]);
      expect(db.prepare(`SELECT count(*) FROM order_events WHERE client_order_id = ?`).pluck().get(NEARBY_ORDER)).toBe(0);
    } finally {
      db.close();
    }
  });
});
