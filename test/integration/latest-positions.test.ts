/**
 * latest_positions is kept by a trigger in the journal itself. Whatever a bot writes, in whatever
 * order of cycles, it must equal what a full scan of the history computes.
 */
import fs from "node:fs";
import Database from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { migrateJournal } from "@/lib/db/journal-file";
import { migratedJournal, migrationFiles, migrationsDir, tempDir } from "../helpers/journal";
import { fullScan, latestPositions } from "../helpers/latest-positions";

type Line = { symbol: string; ours: number; theirs: number };
type Cycle = { bot: string; skipped: boolean; lines: Line[] };

const STEP = 1;
const driftOf = (l: Line) => (Math.abs(l.ours - l.theirs) < STEP / 2 ? "none" : Math.abs(l.ours) < STEP / 2 ? "unknown_position" : "size_drift");

function writeCycles(db: Database.Database, cycles: Cycle[]) {
  const base = Date.parse("2026-08-10T00:00:00.000Z");
  const insertRec = db.prepare(`INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES (?, ?, ?, ?)`);
  const insertPos = db.prepare(
    `INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (?, ?, ?, ?, ?, 10)`,
  );
  cycles.forEach((c, i) => {
    const at = new Date(base + i * 15_000).toISOString();
    db.transaction(() => {
      if (c.skipped) {
        insertRec.run(c.bot, at, "skipped", 1);
        return;
      }
      const outcome = c.lines.some((l) => driftOf(l) !== "none") ? "drift" : "clean";
      const id = Number(insertRec.run(c.bot, at, outcome, 0).lastInsertRowid);
      for (const l of c.lines) insertPos.run(id, l.symbol, l.ours, l.theirs, STEP);
    }).immediate();
  });
}

const cycleArb = fc.record({
  bot: fc.constantFrom("a", "b"),
  skipped: fc.integer({ min: 0, max: 9 }).map((n) => n < 3),
  lines: fc.uniqueArray(
    fc.record({ symbol: fc.constantFrom("AAPL", "BTC", "ETH"), ours: fc.constantFrom(0, 1, 2, -1), theirs: fc.constantFrom(0, 1, 2, -1, 0.4) }),
    { selector: (l) => l.symbol, maxLength: 3 },
  ),
});

describe("latest_positions", () => {
  it("equals a full scan of the history after any sequence of cycles", () => {
    fc.assert(
      fc.property(fc.array(cycleArb, { minLength: 1, maxLength: 40 }), (cycles) => {
        const db = new Database(migratedJournal("latest"));
        writeCycles(db, cycles);
        expect(latestPositions(db)).toEqual(fullScan(db));
        db.close();
      }),
      { numRuns: 60 },
    );
  });

  it("keeps the start of a drift across cycles and through a change of class", () => {
    const db = new Database(migratedJournal("latest"));
    writeCycles(db, [
      { bot: "a", skipped: false, lines: [{ symbol: "ETH", ours: 0, theirs: 0 }] },
      { bot: "a", skipped: false, lines: [{ symbol: "ETH", ours: 0, theirs: 3 }] },
      { bot: "a", skipped: true, lines: [] },
      { bot: "a", skipped: false, lines: [{ symbol: "ETH", ours: 1, theirs: 3 }] },
    ]);
    expect(latestPositions(db)).toEqual([expect.objectContaining({ symbol: "ETH", drift: "size_drift", driftSince: "2026-08-10T00:00:15.000Z" })]);
    db.close();
  });

  it("is backfilled when a journal with history is upgraded", () => {
    const file = `${tempDir("backfill")}/journal.db`;
    const db = new Database(file);
    db.exec("PRAGMA journal_mode=WAL");
    const [v1] = migrationFiles();
    db.exec(fs.readFileSync(v1!, "utf8"));
    writeCycles(db, [
      {
        bot: "a",
        skipped: false,
        lines: [
          { symbol: "AAPL", ours: 5, theirs: 5 },
          { symbol: "ETH", ours: 0, theirs: 0 },
        ],
      },
      {
        bot: "a",
        skipped: false,
        lines: [
          { symbol: "AAPL", ours: 5, theirs: 3 },
          { symbol: "ETH", ours: 0, theirs: 0 },
        ],
      },
      { bot: "b", skipped: false, lines: [{ symbol: "AAPL", ours: 1, theirs: 1 }] },
      {
        bot: "a",
        skipped: false,
        lines: [
          { symbol: "AAPL", ours: 5, theirs: 2 },
          { symbol: "ETH", ours: 0, theirs: 2 },
        ],
      },
    ]);
    expect(db.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'latest_positions'`).pluck().get()).toBe(0);
    db.close();
    migrateJournal(file, { migrationsDir });
    const after = new Database(file, { readonly: true });
    expect(latestPositions(after)).toEqual(fullScan(after));
    after.close();
  });
});
