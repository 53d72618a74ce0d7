import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { verifyAuditLog } from "@/lib/audit/log";
import { writeHistory, type HistoryOptions } from "@/tools/demo/history";
import { tempDir, migrationsDir } from "../helpers/journal";
import { JournalView } from "../helpers/demo-journal";
import { consoleAuditKey } from "@/lib/audit/key";

const base: Omit<HistoryOptions, "file"> = {
  days: 0.5,
  seed: 4,
  start: new Date("2026-07-01T00:00:00.000Z"),
  // More incidents than a real day, so half a day is sure to hold some.
  incidentsPerDay: 10,
  migrationsDir,
};

const fresh = () => path.join(tempDir("history"), "journal.db");

function dump(file: string) {
  const v = new JournalView(file);
  try {
    return {
      orders: v.all(`SELECT * FROM orders ORDER BY client_order_id`),
      events: v.all(`SELECT client_order_id, at, kind, detail FROM order_events ORDER BY id`),
      breakerEvents: v.all(`SELECT bot_id, at, kind, reason, actor, reconciliation_id FROM breaker_events ORDER BY id`),
      reconciliations: v.all(`SELECT bot_id, at, outcome, orders_in_flight FROM reconciliations ORDER BY id`),
    };
  } finally {
    v.close();
  }
}

describe("fast history", () => {
  it("writes every simulated cycle of both bots, with incidents that trip and a person who clears them, into a consistent journal", async () => {
    const file = fresh();
    const report = await writeHistory({ ...base, file });
    expect(report.cycles).toBe(720);
    expect(report.start).toBe("2026-07-01T00:00:00.000Z");
    expect(report.end).toBe("2026-07-01T11:59:00.000Z");
    expect(report.rows.reconciliations).toBe(2 * 720);
    expect(report.rowsWritten).toBe(Object.values(report.rows).reduce((a, b) => a + b, 0));
    expect(report.incidents).toBeGreaterThan(0);
    expect(report.trips).toBeGreaterThan(0);

    const view = new JournalView(file);
    try {
      expect(view.all(`PRAGMA integrity_check`)).toEqual([{ integrity_check: "ok" }]);
      // Every clear by the simulated person is in the audit log, and the chain holds.
      expect(view.all(`SELECT count(*) AS n FROM audit_log WHERE action = 'clear_halt' AND actor = 'operator:oncall'`)).toEqual([{ n: report.clears }]);
      const db = new Database(file, { readonly: true });
      expect(verifyAuditLog(db, consoleAuditKey())).toMatchObject({ ok: true, entries: report.clears });
      db.close();
      expect(view.all(`SELECT min(at) AS first, max(at) AS last FROM reconciliations`)).toEqual([{ first: report.start, last: report.end }]);
      for (const botId of ["alpha", "beta"]) {
        // Trips and clears alternate, a trip first: only a halted bot is cleared, and a bot that
        // trips again was cleared before.
        const kinds = view.breakerEvents(botId).map((e) => e.kind);
        kinds.forEach((k, i) => expect(k).toBe(i % 2 === 0 ? "trip" : "clear"));
        const halted = view.all<{ halted: number }>(`SELECT halted FROM breakers WHERE bot_id = ?`, botId)[0]!.halted;
        expect(halted).toBe(kinds.length % 2);
        expect(
          view
            .breakerEvents(botId)
            .filter((e) => e.kind === "clear")
            .every((e) => e.actor === "operator:oncall"),
        ).toBe(true);
        expect(view.orders(botId).length).toBeGreaterThan(50);
      }
    } finally {
      view.close();
    }
  });

  it("writes the same journal for the same seed, and refuses a journal that already has bots", async () => {
    const a = fresh();
    const b = fresh();
    await writeHistory({ ...base, days: 0.25, file: a });
    await writeHistory({ ...base, days: 0.25, file: b });
    expect(dump(b)).toEqual(dump(a));
    await expect(writeHistory({ ...base, days: 0.25, file: a })).rejects.toThrow(/already has bots/);
    const db = new Database(a, { readonly: true });
    expect((db.prepare(`SELECT count(*) AS n FROM bots`).get() as { n: number }).n).toBe(2);
    db.close();
  });
});
