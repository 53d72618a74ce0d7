/**
 * The five-minute rollups (migration 0003) and the long charts drawn from them. Whatever a bot
 * writes (drifts of both classes, a symbol left out of some cycles, skipped cycles), a chart read
 * through the rollups must count every cycle, keep each book's extremes, draw only real cycles,
 * and shade every drift a cycle-by-cycle scan finds, and nothing else. The backfill that upgrades a
 * journal with history must leave the same rollups as the trigger.
 */
import fs from "node:fs";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { migrateJournal } from "@/lib/db/journal-file";
import * as schema from "@/lib/db/schema";
import { getSymbolChart } from "@/lib/queries/symbol-chart";
import { migratedJournal, migrationFiles, migrationsDir, tempDir } from "../helpers/journal";

const START = Date.parse("2026-08-10T00:00:00.000Z");
const CYCLE_MS = 15_000;

/** A stretch of cycles in which the symbol's books hold still. */
interface Segment {
  cycles: number;
  ours: number;
  /** theirs - ours */
  offset: number;
  /** The bot leaves the symbol out of these cycles (it is flat on both sides). */
  missing: boolean;
  skipped: boolean;
}

const segmentArb = fc.record({
  cycles: fc.integer({ min: 1, max: 90 }),
  ours: fc.integer({ min: -3, max: 3 }),
  offset: fc.constantFrom(0, 0, 0, 1, -2, 0.4),
  missing: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  skipped: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
});

function write(db: Database.Database, segments: Segment[]): number {
  const rec = db.prepare(`INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES ('a', ?, ?, 0)`);
  const pos = db.prepare(`INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (?, ?, ?, ?, 1, 10)`);
  let i = 0;
  db.transaction(() => {
    for (const s of segments) {
      for (let k = 0; k < s.cycles; k++, i++) {
        const at = new Date(START + i * CYCLE_MS).toISOString();
        const id = Number(rec.run(at, s.skipped ? "skipped" : "clean").lastInsertRowid);
        if (s.skipped) continue;
        // One-cycle spikes, each book on its own cycles: a bucket's extremes are rarely its first
        // or last cycle, or each other's, and each spike of one book is a one-cycle drift.
        const ours = s.ours + (i % 37 === 5 ? 3 : i % 53 === 7 ? -4 : 0);
        const theirs = s.ours + s.offset + (i % 41 === 9 ? -3 : i % 59 === 11 ? 4 : 0);
        if (!s.missing) pos.run(id, "X", ours, theirs);
        pos.run(id, "Y", 1, 1);
      }
    }
  })();
  return i;
}

/** The compared cycles of X in [from, to], a left-out cycle read as flat, as the chart defines them. */
function cycles(db: Database.Database, from: string, to: string) {
  return (
    db
      .prepare(
        `SELECT r.at, coalesce(p.ours, 0) AS ours, coalesce(p.theirs, 0) AS theirs FROM reconciliations r
         LEFT JOIN reconciliation_positions p ON p.reconciliation_id = r.id AND p.symbol = 'X'
         WHERE r.bot_id = 'a' AND r.at >= ? AND r.at <= ? AND r.outcome IN ('clean', 'drift') ORDER BY r.at`,
      )
      .all(from, to) as { at: string; ours: number; theirs: number }[]
  ).map((c) => ({ t: Date.parse(c.at), ours: c.ours, theirs: c.theirs, drifting: Math.abs(c.ours - c.theirs) >= 0.5 }));
}

/** position_rollups of X as a plain scan computes them: ties keep the earlier cycle. */
function expectedRollups(db: Database.Database) {
  const rows = db
    .prepare(
      `SELECT r.at, p.ours, p.theirs FROM reconciliation_positions p JOIN reconciliations r ON r.id = p.reconciliation_id
       WHERE p.symbol = 'X' AND r.outcome IN ('clean', 'drift') ORDER BY r.at`,
    )
    .all() as { at: string; ours: number; theirs: number }[];
  const out = new Map<string, Record<string, unknown>>();
  for (const c of rows) {
    const t = Date.parse(c.at);
    const bucket = new Date(t - (t % 300_000)).toISOString();
    const d = Math.abs(c.ours - c.theirs) < 0.5 ? 0 : Math.abs(c.ours) < 0.5 ? 2 : 1;
    const b = out.get(bucket);
    if (!b) {
      out.set(bucket, {
        bucket,
        cycles: 1,
        first: c,
        last: c,
        minOurs: c,
        maxOurs: c,
        minTheirs: c,
        maxTheirs: c,
        wide: c,
        drift: d > 0 ? 1 : 0,
        unknown: d === 2 ? 1 : 0,
        firstDrift: d > 0 ? c.at : null,
      });
      continue;
    }
    const gap = (x: typeof c) => Math.abs(x.ours - x.theirs);
    b.cycles = (b.cycles as number) + 1;
    b.last = c;
    if (c.ours < (b.minOurs as typeof c).ours) b.minOurs = c;
    if (c.ours > (b.maxOurs as typeof c).ours) b.maxOurs = c;
    if (c.theirs < (b.minTheirs as typeof c).theirs) b.minTheirs = c;
    if (c.theirs > (b.maxTheirs as typeof c).theirs) b.maxTheirs = c;
    if (gap(c) > gap(b.wide as typeof c)) b.wide = c;
    if (d > 0) b.drift = (b.drift as number) + 1;
    if (d === 2) b.unknown = (b.unknown as number) + 1;
    if (d > 0 && b.firstDrift === null) b.firstDrift = c.at;
  }
  return [...out.values()];
}

function storedRollups(db: Database.Database) {
  return (db.prepare(`SELECT * FROM position_rollups WHERE symbol = 'X' ORDER BY bucket`).all() as Record<string, string & number>[]).map((r) => {
    const line = (p: string, q: string, at: string) => ({ at: r[at], ours: r[p], theirs: r[q] });
    return {
      bucket: r.bucket,
      cycles: r.cycles,
      first: line("first_ours", "first_theirs", "first_at"),
      last: line("last_ours", "last_theirs", "last_at"),
      minOurs: line("min_ours", "min_ours_theirs", "min_ours_at"),
      maxOurs: line("max_ours", "max_ours_theirs", "max_ours_at"),
      minTheirs: line("min_theirs_ours", "min_theirs", "min_theirs_at"),
      maxTheirs: line("max_theirs_ours", "max_theirs", "max_theirs_at"),
      wide: line("wide_ours", "wide_theirs", "wide_at"),
      drift: r.drift_cycles,
      unknown: r.unknown_cycles,
      firstDrift: r.first_drift_at,
    };
  });
}

function rollups(db: Database.Database) {
  return {
    positions: db.prepare(`SELECT * FROM position_rollups ORDER BY bot_id, symbol, bucket`).all(),
    cycles: db.prepare(`SELECT * FROM cycle_rollups ORDER BY bot_id, bucket`).all(),
  };
}

describe("charts over the five-minute rollups", () => {
  it("count every cycle, keep the extremes, draw only real cycles and shade exactly the drifts", () => {
    fc.assert(
      fc.property(fc.array(segmentArb, { minLength: 3, maxLength: 40 }), fc.integer({ min: 0, max: 299_999 }), (segments, shift) => {
        const file = migratedJournal("rollup-chart");
        const w = new Database(file);
        const n = write(w, segments);
        w.close();
        const sqlite = new Database(file, { readonly: true });
        const db = drizzle(sqlite, { schema });
        const from = new Date(START + shift).toISOString();
        const to = new Date(Math.max(START + n * CYCLE_MS, START + shift + CYCLE_MS)).toISOString();
        // 140 points: 20 buckets, each at least five minutes wide once the window is 100 min long.
        const chart = getSymbolChart({ db, botId: "a", symbol: "X", range: { kind: "custom", from, to }, now: new Date(to), maxPoints: 140 });
        expect(storedRollups(sqlite)).toEqual(expectedRollups(sqlite));
        const inWindow = cycles(sqlite, from, to);
        // The cycle before the window, if no older than the window is long, is drawn at its left edge.
        const before = cycles(sqlite, new Date(2 * Date.parse(from) - Date.parse(to)).toISOString(), from)
          .filter((c) => c.t < Date.parse(from))
          .at(-1);
        sqlite.close();
        const all = before ? [{ ...before, t: Date.parse(from) }, ...inWindow] : inWindow;

        expect(chart.samples).toBe(inWindow.length);
        expect(chart.points.length).toBeLessThanOrEqual(140);
        const real = new Set(all.map((c) => `${c.t}:${c.ours}:${c.theirs}`));
        for (const p of chart.points) expect(real.has(`${p.t}:${p.ours}:${p.theirs}`)).toBe(true);
        if (all.length > 0) {
          for (const pick of [(c: (typeof all)[0]) => c.ours, (c: (typeof all)[0]) => c.theirs]) {
            const values = all.map(pick);
            const drawn = chart.points.map((p) => pick({ ...p, drifting: false }));
            expect(drawn).toContain(Math.min(...values));
            expect(drawn).toContain(Math.max(...values));
          }
        }
        // Every drift run is shaded; every shaded episode holds a drifting cycle.
        const runs: { from: number; to: number }[] = [];
        for (const c of all) {
          const last = runs[runs.length - 1];
          if (c.drifting && last && last.to === -1) continue;
          if (c.drifting) runs.push({ from: c.t, to: -1 });
          else if (last && last.to === -1) last.to = c.t;
        }
        for (const r of runs) expect(chart.episodes.some((e) => e.from <= (r.to === -1 ? Infinity : r.to) && e.to >= r.from)).toBe(true);
        for (const e of chart.episodes) expect(all.some((c) => c.drifting && c.t >= e.from && c.t <= e.to)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it("counts 1,440 cycles through 72 rollups and shades every one-cycle drift among them", () => {
    const file = migratedJournal("rollup-long");
    const w = new Database(file);
    const n = write(w, [{ cycles: 1_440, ours: 2, offset: 0, missing: false, skipped: false }]);
    w.close();
    const sqlite = new Database(file, { readonly: true });
    const db = drizzle(sqlite, { schema });
    const to = new Date(START + n * CYCLE_MS).toISOString();
    const read = sqlite.prepare(`SELECT count(*) FROM position_rollups WHERE symbol = 'X'`).pluck().get();
    expect(read).toBe(72);
    const chart = getSymbolChart({
      db,
      botId: "a",
      symbol: "X",
      range: { kind: "custom", from: new Date(START).toISOString(), to },
      now: new Date(to),
      maxPoints: 140,
    });
    sqlite.close();
    expect(chart.samples).toBe(1_440);
    expect(chart.bucketMs).toBe(18 * 60_000);
    // The spikes of theirs are one-cycle drifts, about 60 of them, ten minutes apart: more than 20
    // buckets can shade one by one, so neighbours share a shaded span, and none is left out.
    const drifting = cycles(new Database(file, { readonly: true }), new Date(START).toISOString(), to).filter((c) => c.drifting);
    expect(drifting.length).toBeGreaterThan(50);
    for (const c of drifting) expect(chart.episodes.some((e) => e.from <= c.t && e.to >= c.t)).toBe(true);
  });

  it("are backfilled on upgrade exactly as the trigger keeps them", () => {
    const segments: Segment[] = [
      { cycles: 50, ours: 2, offset: 0, missing: false, skipped: false },
      { cycles: 7, ours: 2, offset: 1, missing: false, skipped: false },
      { cycles: 30, ours: 0, offset: 0, missing: true, skipped: false },
      { cycles: 3, ours: 0, offset: -2, missing: false, skipped: true },
      { cycles: 40, ours: 0, offset: -2, missing: false, skipped: false },
    ];
    const live = new Database(migratedJournal("rollup-live"));
    write(live, segments);

    const file = `${tempDir("rollup-backfill")}/journal.db`;
    const old = new Database(file);
    old.exec("PRAGMA journal_mode=WAL");
    for (const f of migrationFiles().slice(0, 3)) old.exec(fs.readFileSync(f, "utf8"));
    write(old, segments);
    expect(old.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'position_rollups'`).pluck().get()).toBe(0);
    old.close();
    migrateJournal(file, { migrationsDir });
    const upgraded = new Database(file, { readonly: true });
    expect(rollups(upgraded)).toEqual(rollups(live));
    expect(rollups(live).positions.length).toBeGreaterThan(5);
    upgraded.close();
    live.close();
  });
});
