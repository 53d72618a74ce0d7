/**
 * The drift rule lives in lib/reconcile/diff.ts (isDrift, classifyDrift). The clear checklist finds
 * drifting cycles with driftSql, and the journal's trigger (drizzle/0001_latest_positions.sql) stores
 * each line's class in committed SQL. Both run here on a real migrated journal, for sizes at and
 * around the half-step edge, and must agree with the TypeScript rule line by line.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateJournal } from "@/lib/db/journal-file";
import { readDriftsByReconciliation } from "@/lib/queries/drifts";
import { journalDbOf } from "../helpers/console-db";
import { classifyDrift, driftSql, isDrift } from "@/lib/reconcile/diff";

let dir: string;
let sqlite: Database.Database;
let cycle = 0;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-drift-sql-"));
  const file = path.join(dir, "journal.db");
  migrateJournal(file, { migrationsDir: path.resolve(import.meta.dirname, "../../drizzle") });
  sqlite = new Database(file);
  sqlite.prepare(`INSERT INTO bots (bot_id, exchange, client_id_prefix) VALUES ('bot-a', 'sim', 'a')`).run();
});
afterAll(() => {
  sqlite.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Line {
  ours: number;
  theirs: number;
  qtyStep: number;
}

/** One compared cycle holding `lines` (symbols s0, s1…); what driftSql and the trigger made of each. */
function writeCycle(lines: readonly Line[]): { drifting: boolean[]; stored: string[] } {
  cycle += 1;
  const id = cycle;
  sqlite.transaction(() => {
    sqlite
      .prepare(`INSERT INTO reconciliations (id, bot_id, at, outcome) VALUES (?, 'bot-a', ?, 'clean')`)
      .run(id, new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString());
    const insert = sqlite.prepare(`INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step) VALUES (?, ?, ?, ?, ?)`);
    lines.forEach((l, i) => insert.run(id, `s${i}`, l.ours, l.theirs, l.qtyStep));
  })();
  const drifting = (
    sqlite
      .prepare(
        `SELECT ${driftSql({ ours: "p.ours", theirs: "p.theirs", qtyStep: "p.qty_step" })} AS d FROM reconciliation_positions p WHERE p.reconciliation_id = ? ORDER BY rowid`,
      )
      .pluck()
      .all(id) as number[]
  ).map((d) => d === 1);
  const stored = lines.map(
    (_l, i) => sqlite.prepare(`SELECT drift FROM latest_positions WHERE bot_id = 'bot-a' AND symbol = ?`).pluck().get(`s${i}`) as string,
  );
  return { drifting, stored };
}

describe("the drift rule in SQL agrees with isDrift and classifyDrift", () => {
  const table: [string, Line][] = [
    ["equal books", { ours: 2, theirs: 2, qtyStep: 1 }],
    ["just under half a step apart", { ours: 2, theirs: 2.49, qtyStep: 1 }],
    ["exactly half a step apart", { ours: 2, theirs: 2.5, qtyStep: 1 }],
    ["flat bot, exchange holding half a step", { ours: 0, theirs: 0.005, qtyStep: 0.01 }],
    ["flat bot, exchange holding dust", { ours: 0, theirs: 0.004, qtyStep: 0.01 }],
    ["short bot, exchange flat", { ours: -3, theirs: 0, qtyStep: 1 }],
    ["float dust in a summed book", { ours: 0.1 + 0.2, theirs: 0.3, qtyStep: 0.001 }],
  ];

  it.each(table)("%s", (_name, line) => {
    const { drifting, stored } = writeCycle([line]);
    expect(drifting).toEqual([isDrift(line)]);
    expect(stored).toEqual([classifyDrift(line)]);
  });

  it("for any sizes and steps, including the half-step edge, driftSql is isDrift and the trigger's class is classifyDrift", () => {
    const step = fc.constantFrom(1, 0.5, 0.1, 0.01, 0.001, 1e-8, 100);
    const size = (s: number) =>
      fc.oneof(
        fc.integer({ min: -1000, max: 1000 }).map((n) => n * s),
        fc.integer({ min: -1000, max: 1000 }).map((n) => n * s + s / 2),
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
      );
    const line = step.chain((qtyStep) => fc.record({ ours: size(qtyStep), theirs: size(qtyStep), qtyStep: fc.constant(qtyStep) }));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), (lines) => {
        const { drifting, stored } = writeCycle(lines);
        expect(drifting).toEqual(lines.map(isDrift));
        expect(stored).toEqual(lines.map(classifyDrift));
      }),
      { numRuns: 300 },
    );
  });
});

// The incident timeline, the breakers page and a trip's story read a cycle's drifting lines only
// (readDriftsByReconciliation filters with driftSql); classifyDrift still names each.
describe("the drifting lines of a cycle, as the incident pages read them", () => {
  const drifts = async (id: number) => (await readDriftsByReconciliation({ db: journalDbOf(sqlite), reconciliationIds: [id] })).get(id) ?? [];
  const expected = (lines: readonly Line[]) =>
    lines.flatMap((l, i) => {
      const drift = l.qtyStep > 0 ? classifyDrift(l) : "size_drift";
      return drift === "none" ? [] : [{ symbol: `s${i}`, ours: l.ours, theirs: l.theirs, qtyStep: l.qtyStep, drift }];
    });

  it("are every line classifyDrift calls a drift, at and around the half-step edge, and no other", async () => {
    const step = fc.constantFrom(1, 0.5, 0.01, 1e-8);
    const size = (s: number) =>
      fc.oneof(
        fc.integer({ min: -50, max: 50 }).map((n) => n * s),
        fc.integer({ min: -50, max: 50 }).map((n) => n * s + s / 2),
      );
    const line = step.chain((qtyStep) => fc.record({ ours: size(qtyStep), theirs: size(qtyStep), qtyStep: fc.constant(qtyStep) }));
    // At most ten lines, so the symbols' byte order (s0 … s9) is the order they were written in.
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 10 }), async (lines) => {
        writeCycle(lines);
        expect(await drifts(cycle)).toEqual(expected(lines));
      }),
      { numRuns: 100 },
    );
  });

  it("keep a line whose step a journal written around the schema left at zero, as a size drift", async () => {
    sqlite.pragma("ignore_check_constraints = ON");
    try {
      writeCycle([
        { ours: 1, theirs: 1, qtyStep: 0 },
        { ours: 1, theirs: 1, qtyStep: 1 },
      ]);
    } finally {
      sqlite.pragma("ignore_check_constraints = OFF");
    }
    expect(await drifts(cycle)).toEqual([{ symbol: "s0", ours: 1, theirs: 1, qtyStep: 0, drift: "size_drift" }]);
  });
});
