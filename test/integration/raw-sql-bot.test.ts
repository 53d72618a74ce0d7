/**
 * A bot that is not written in TypeScript: it creates the schema from the .sql files and writes
 * rows with plain SQL. The project's library and the console's queries must read what it wrote.
 */
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { describe, expect, it } from "vitest";
import { openJournalReader } from "@/lib/db/journal-file";
import * as schema from "@/lib/db/schema";
import { clientOrderId } from "@/lib/journal/client-order-id";
import { classifyOrder } from "@/lib/journal/order-state";
import { listBots } from "@/lib/queries/bots";
import { diffLine } from "@/lib/reconcile/diff";
import { isoAgo, migrationsDir, plainSqlJournal } from "../helpers/journal";

const now = Date.now();

function writeAsAPythonBot(file: string) {
  const db = new Database(file);
  db.pragma("busy_timeout = 5000");
  const id = clientOrderId("q500", { strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
  db.exec(`
    BEGIN IMMEDIATE;
    INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES
      ('py-momentum', 'bybit', 'q500', '${isoAgo(2_000, now)}'),
      ('py-meanrev', 'sim', 'mr1', '${isoAgo(600_000, now)}');
    INSERT INTO breakers (bot_id, halted, reason, changed_at, changed_by, version) VALUES
      ('py-momentum', 0, NULL, '${isoAgo(3_600_000, now)}', 'bot', 1),
      ('py-meanrev', 1, 'unknown position ETHUSDT +3', '${isoAgo(300_000, now)}', 'bot', 2);
    INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, filled_qty, attempts, created_at, updated_at, version)
      VALUES ('${id}', 'py-momentum', 'media_movil', 'AAPL', 'buy', 500, '2026-08-10T15:30:00Z', 'unknown', 0, 3, '${isoAgo(60_000, now)}', '${isoAgo(50_000, now)}', 4);
    INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES ('${id}', '${isoAgo(60_000, now)}', 'intent', 'bot', '{}');
    INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES ('py-momentum', '${isoAgo(4_000, now)}', 'clean', 0);
    INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (last_insert_rowid(), 'AAPL', 500, 500, 1, 92);
    INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES ('py-meanrev', '${isoAgo(300_000, now)}', 'drift', 0);
    INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (last_insert_rowid(), 'ETHUSDT', 0, 3, 0.01, 3000);
    INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('py-meanrev', '${isoAgo(300_000, now)}', 'trip', 'unknown position ETHUSDT +3', 'bot', last_insert_rowid());
    COMMIT;
  `);
  db.close();
  return id;
}

describe("a journal written with plain SQL", () => {
  const file = plainSqlJournal("raw");
  const id = writeAsAPythonBot(file);
  const { db: sqlite } = openJournalReader(file, { migrationsDir });
  const db = drizzle(sqlite, { schema });

  it("lists its bots with breaker state, heartbeat age and last reconciliation", async () => {
    const bots = await listBots({ db, now: new Date(now), heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000 });
    expect(bots.map((b) => [b.botId, b.status])).toEqual([
      ["py-meanrev", "halted"],
      ["py-momentum", "running"],
    ]);
    const meanrev = bots[0]!;
    expect(meanrev.breaker).toMatchObject({ halted: true, reason: "unknown position ETHUSDT +3", changedBy: "bot", version: 2 });
    expect(meanrev.heartbeatAgeMs).toBe(600_000);
    expect(meanrev.reasons).toContain("heartbeat is stale");
    expect(bots[1]!.lastReconciliation).toMatchObject({ outcome: "clean", ageMs: 4_000 });
  });

  it("keeps the deterministic id the bot computed, and the library agrees on it", async () => {
    const row = db.query.orders.findFirst({ where: (o, { eq }) => eq(o.clientOrderId, id) }).sync();
    expect(row?.clientOrderId).toBe("q500-d802a55a0df8ed0d3231");
    expect(classifyOrder(row!, { now: new Date(now), graceMs: 30_000 })).toBe("doubtful");
  });

  it("classifies its reconciliation rows with the shared book diff", async () => {
    const rows = db.select().from(schema.reconciliationPositions).all();
    expect(rows.map((r) => diffLine(r).drift).sort()).toEqual(["none", "unknown_position"]);
  });

  it("rejects rows that break the contract instead of storing them", async () => {
    const w = new Database(file);
    expect(() =>
      w.exec(`INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, created_at, updated_at)
              VALUES ('x-1', 'py-momentum', 's', 'AAPL', 'hold', 1, 'b', 'now', 'now')`),
    ).toThrow(/CHECK constraint failed/);
    expect(() => w.exec(`INSERT INTO reconciliations (bot_id, at, outcome) VALUES ('py-momentum', 'now', 'fine')`)).toThrow(/CHECK/);
    w.close();
  });
});
