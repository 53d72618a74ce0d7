/**
 * An order whose time is outside the contract (docs/journal.md: UTC, milliseconds, `Z`) is no proof
 * of freshness: classifyOrder and the SQL every count uses both call it doubtful once it is
 * created or sent, so the clear checklist can never count fewer doubtful orders than the symbol
 * page shows.
 */
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { classifyOrder, doubtfulCutoff, doubtfulOrderSql } from "@/lib/journal/order-state";
import { migratedJournal } from "../helpers/journal";

const now = new Date("2026-08-10T15:31:00.000Z");
const graceMs = 30_000;
let sqlite: Database.Database;

beforeEach(() => {
  sqlite = new Database(migratedJournal("doubtful-times"));
  sqlite.prepare(`INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES ('bot-a', 'sim', 'ba1', NULL)`).run();
});
afterEach(() => sqlite.close());

function sqlSaysDoubtful(state: string, updatedAt: string): boolean {
  sqlite.prepare(`DELETE FROM orders`).run();
  sqlite
    .prepare(
      `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, created_at, updated_at)
       VALUES ('ba1-x', 'bot-a', 'trend', 'AAPL', 'buy', 1, '2026-08-10T15:30:00Z', ?, ?, ?)`,
    )
    .run(state, updatedAt, updatedAt);
  const sql = `SELECT count(*) FROM orders WHERE ${doubtfulOrderSql({ state: "state", updatedAt: "updated_at", cutoffParam: "?" })}`;
  return (sqlite.prepare(sql).pluck().get(doubtfulCutoff({ now, graceMs })) as number) === 1;
}

describe("an order time outside the contract", () => {
  const fresh = new Date(now.getTime() - 1_000);
  const cases: [string, string][] = [
    ["no milliseconds", fresh.toISOString().replace(/\.\d{3}Z$/, "Z")],
    ["an offset instead of Z", fresh.toISOString().replace("Z", "+00:00")],
    ["a space for the T (Date.parse reads it as local time)", fresh.toISOString().replace("T", " ").replace("Z", "")],
    ["words", "yesterday"],
    ["a future year in another shape", "99999-01-01T00:00:00.000Z"],
  ];

  it.each(cases)("%s: a sent order is doubtful in classifyOrder and in SQL", (_name, updatedAt) => {
    expect(classifyOrder({ state: "sent", updatedAt }, { now, graceMs })).toBe("doubtful");
    expect(sqlSaysDoubtful("sent", updatedAt)).toBe(true);
  });

  it("a canonical time a second old is not doubtful in either; a settled order never is", () => {
    expect(classifyOrder({ state: "sent", updatedAt: fresh.toISOString() }, { now, graceMs })).toBe("live");
    expect(sqlSaysDoubtful("sent", fresh.toISOString())).toBe(false);
    expect(classifyOrder({ state: "filled", updatedAt: "yesterday" }, { now, graceMs })).toBe("settled");
    expect(sqlSaysDoubtful("filled", "yesterday")).toBe(false);
  });
});
