/**
 * The benchmark's reference journal, at a size a test can afford: its shape (every cycle carries
 * every symbol, orders with their events, a trip, an acknowledgement and a clear per drift, a chain
 * the verifier accepts) and its latest state: bulk mode (trigger off, latest_positions written by the
 * generator) leaves exactly what trigger mode leaves, and both equal a full scan of the history.
 */
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { verifyAuditLog } from "@/lib/audit/log";
import { writeReferenceJournal, type ReferenceReport } from "@/tools/bench/reference-journal";
import { migrationsDir, tempDir } from "../helpers/journal";
import { fullScan, latestPositions } from "../helpers/latest-positions";
import { consoleAuditKey } from "@/lib/audit/key";

const end = new Date("2026-08-12T00:00:00.000Z");
// Half a day of two bots with eight symbols, drifting often enough to trip several times.
const quick = { days: 0.5, end, symbolsPerBot: 8, ordersPerDay: 4_000, driftsPerDay: 12, migrationsDir };

let bulk: { report: ReferenceReport; db: Database.Database };
let viaTrigger: { report: ReferenceReport; db: Database.Database };

beforeAll(() => {
  const dir = tempDir("reference");
  const a = writeReferenceJournal({ ...quick, file: `${dir}/bulk.sqlite`, bulk: true });
  const b = writeReferenceJournal({ ...quick, file: `${dir}/trigger.sqlite`, bulk: false });
  bulk = { report: a, db: new Database(a.file, { readonly: true }) };
  viaTrigger = { report: b, db: new Database(b.file, { readonly: true }) };
});

const count = (db: Database.Database, sql: string) => db.prepare(sql).pluck().get() as number;

describe("reference journal", () => {
  it("has the shape it reports: every cycle carries every symbol, every order its events", () => {
    const { db, report } = bulk;
    expect(report.cycles).toBe(2 * 12 * 240);
    expect(count(db, "SELECT count(*) FROM reconciliations")).toBe(report.cycles);
    expect(count(db, "SELECT count(*) FROM reconciliation_positions")).toBe(report.positionRows);
    expect(report.positionRows).toBe(report.cycles * 8);
    expect(count(db, "SELECT count(*) FROM orders")).toBe(report.orders + report.doubtful);
    expect(count(db, "SELECT count(*) FROM order_events")).toBe(report.orderEvents);
    expect(count(db, "SELECT count(*) FROM orders o WHERE NOT EXISTS (SELECT 1 FROM order_events e WHERE e.client_order_id = o.client_order_id)")).toBe(0);
    expect(count(db, "SELECT count(*) FROM orders WHERE state = 'unknown'")).toBe(report.doubtful);
    expect(report.orders).toBeGreaterThan(1_500);
  });

  it("trips on each drift, and every trip is acknowledged and cleared through a verified audit chain", () => {
    const { db, report } = bulk;
    expect(report.trips).toBeGreaterThanOrEqual(4);
    expect(count(db, "SELECT count(*) FROM breaker_events WHERE kind = 'trip'")).toBe(report.trips);
    expect(count(db, "SELECT count(*) FROM breaker_events WHERE kind = 'clear'")).toBe(report.clears);
    expect(report.clears).toBeGreaterThanOrEqual(report.trips - 2);
    // Each trip points at a cycle that really drifted.
    expect(
      count(
        db,
        `SELECT count(*) FROM breaker_events t JOIN reconciliations r ON r.id = t.reconciliation_id
         WHERE t.kind = 'trip' AND r.outcome = 'drift'
           AND EXISTS (SELECT 1 FROM reconciliation_positions p WHERE p.reconciliation_id = r.id AND abs(p.ours - p.theirs) >= p.qty_step / 2)`,
      ),
    ).toBe(report.trips);
    expect(count(db, "SELECT count(*) FROM audit_log")).toBe(report.auditEntries);
    expect(verifyAuditLog(db, consoleAuditKey())).toEqual(expect.objectContaining({ ok: true }));
    expect(count(db, "SELECT version FROM breakers WHERE bot_id = 'alpha'")).toBe(1 + count(db, "SELECT count(*) FROM breaker_events WHERE bot_id = 'alpha'"));
  });

  it("leaves the same latest state in bulk mode as the trigger does, and both equal a full scan", () => {
    const fromTrigger = latestPositions(viaTrigger.db);
    expect(fromTrigger).toHaveLength(16);
    expect(fromTrigger).toEqual(fullScan(viaTrigger.db));
    expect(latestPositions(bulk.db)).toEqual(fromTrigger);
    // Some line is drifting at the end or has drifted; the comparison is not between empty states.
    expect(count(bulk.db, "SELECT count(*) FROM reconciliation_positions WHERE abs(ours - theirs) >= qty_step / 2")).toBeGreaterThan(0);
  });

  it("puts back the trigger and the indexes it set aside in bulk mode", () => {
    const objects = (db: Database.Database) => db.prepare(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name`).all();
    expect(objects(bulk.db)).toEqual(objects(viaTrigger.db));
    expect(bulk.db.pragma("integrity_check", { simple: true })).toBe("ok");
  });

  it("is the same file for the same seed and end", () => {
    const again = writeReferenceJournal({ ...quick, file: `${tempDir("reference-again")}/bulk.sqlite` });
    const db = new Database(again.file, { readonly: true });
    const digest = (d: Database.Database) =>
      d.prepare(`SELECT count(*), total(ours), total(theirs), max(reconciliation_id) FROM reconciliation_positions`).raw().get();
    expect(digest(db)).toEqual(digest(bulk.db));
    expect(db.prepare(`SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1`).pluck().get()).toBe(
      bulk.db.prepare(`SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1`).pluck().get(),
    );
    db.close();
  });
});
