/**
 * The TypeScript writer on SQLite and on PostgreSQL, side by side: the same story (the same
 * simulator seed, faults and clock) written by JournalWriter into a migrated SQLite file and by
 * PgJournalWriter into a migrated PostgreSQL database must leave every table a writer touches,
 * and the tables the triggers keep, equal row for row and value for value: ids, versions, event
 * details, times, the trip causes and the rollups.
 */
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PgJournalWriter } from "@/lib/bot/pg-journal-writer";
import type { Decision } from "@/lib/journal/client-order-id";
import { botOn, pgJournalsForFile, type BotOnEngine } from "../helpers/engines";
import { postgresAvailable } from "../helpers/postgres";

const journals = pgJournalsForFile("journal-writer-engines");
let bots: BotOnEngine[] = [];
afterEach(async () => {
  await Promise.all(bots.map((b) => b.close()));
  bots = [];
});

const TABLES = [
  "SELECT * FROM bots ORDER BY bot_id",
  "SELECT * FROM orders ORDER BY client_order_id",
  "SELECT * FROM order_events ORDER BY id",
  "SELECT * FROM reconciliations ORDER BY id",
  "SELECT * FROM reconciliation_positions ORDER BY reconciliation_id, symbol",
  "SELECT * FROM breakers ORDER BY bot_id",
  "SELECT * FROM breaker_events ORDER BY id",
  "SELECT * FROM book_corrections ORDER BY id",
  "SELECT * FROM latest_positions ORDER BY bot_id, symbol",
  "SELECT * FROM position_rollups ORDER BY 1, 2, 3",
  "SELECT * FROM cycle_rollups ORDER BY 1, 2",
];

const at = (minute: number) => `2026-08-10T15:${String(30 + minute).padStart(2, "0")}:00.000Z`;
const buy = (symbol: string, qty: number, minute: number): Decision => ({ strategy: "media_movil", symbol, side: "buy", qty, bar: at(minute) });

/** Every kind of write the writer makes, with each fault the simulator has. */
async function story(bot: BotOnEngine): Promise<unknown[]> {
  const { sim, writer } = bot;
  const outcomes: unknown[] = [];
  const step = async (p: Promise<unknown> | unknown) => outcomes.push(JSON.parse(JSON.stringify((await p) ?? null)) as unknown);
  // A position the bot never opened: closed reduce-only, the breaker trips; the operator clears it.
  sim.setPositionBehindBot("ETHUSDT", 3);
  await step(writer.reconcile({ symbols: ["AAPL", "BTCUSDT", "ETHUSDT"] }));
  await bot.exec(
    `UPDATE breakers SET halted = 0, reason = NULL, changed_at = ?, changed_by = 'operator:ana', version = version + 1 WHERE bot_id = 'bot-a'`,
    sim.now().toISOString(),
  );
  await step(writer.sendOnce(buy("AAPL", 500, 0)));
  sim.advance(15_000);
  await step(writer.heartbeat());
  await step(writer.reconcile({ symbols: ["AAPL", "BTCUSDT"] }));
  sim.inject({ on: "create", fault: "timeout_after_accept" });
  await step(writer.sendOnce(buy("BTCUSDT", 0.5, 1)));
  sim.inject({ on: "create", fault: "timeout_not_received" });
  await step(writer.sendOnce(buy("ETHUSDT", 2, 2)));
  sim.inject({ on: "create", fault: "rate_limit" });
  await step(writer.sendOnce(buy("AAPL", 10, 3)));
  sim.inject({ on: "create", fault: "reject", reason: "insufficient margin" });
  await step(writer.sendOnce(buy("AAPL", 20, 4)));
  sim.inject({ on: "create", fault: "partial_fill", fillRatio: 0.4 });
  await step(writer.sendOnce(buy("ETHUSDT", 1, 5)));
  sim.advance(15_000);
  await step(writer.reconcile({ symbols: ["AAPL", "BTCUSDT", "ETHUSDT"] })); // skipped: in flight
  await step(writer.recover());
  const partial = (await writer.unsettledOrders())[0];
  if (partial) await step(writer.refresh(partial.clientOrderId));
  sim.advance(15_000);
  sim.setPositionBehindBot("AAPL", 300); // a size drift
  await step(writer.reconcile({ symbols: ["AAPL", "BTCUSDT", "ETHUSDT"] }));
  await bot.exec(
    `INSERT INTO book_corrections (bot_id, symbol, kind, ours, theirs, reconciliation_id, delta, note, corrected_by, corrected_at)
     VALUES ('bot-a', 'AAPL', 'adopt_exchange', 510, 300, (SELECT max(id) FROM reconciliations), -210, 'closed by hand', 'operator:ana', ?)`,
    sim.now().toISOString(),
  );
  sim.inject({ on: "create", fault: "timeout_after_accept" });
  sim.inject({ on: "find", fault: "lookup_fail", times: Infinity });
  await step(writer.sendOnce(buy("BTCUSDT", 0.25, 6), { reduceOnly: true })); // unknown: trips (already halted)
  sim.clearFaults();
  sim.advance(60_000);
  await step(writer.reconcile({ symbols: ["AAPL", "BTCUSDT", "ETHUSDT"] }));
  await step(writer.trip("by hand"));
  await step(writer.breaker());
  await step(Promise.resolve(writer.book()).then((m) => [...m]));
  await step(writer.ordersInFlight());
  return outcomes;
}

describe.skipIf(!postgresAvailable)("the TypeScript writer writes the same journal on SQLite and on PostgreSQL", () => {
  it("every table, row for row, after a story with each fault, a drift, a correction and an unknown position", async () => {
    const lite = await botOn("sqlite", journals);
    const post = await botOn("postgresql", journals);
    bots = [lite, post];
    const outcomes = [await story(lite), await story(post)];
    expect(outcomes[1]).toEqual(outcomes[0]);
    const read = async (b: BotOnEngine) => Object.fromEntries(await Promise.all(TABLES.map(async (q) => [q, await b.rows(q)] as const)));
    const [a, b] = [await read(lite), await read(post)];
    // The story reaches what it claims: a lost reply found, an unknown order, a skipped cycle, a close.
    const kinds = new Set((a["SELECT * FROM order_events ORDER BY id"] as { kind: string }[]).map((e) => e.kind));
    expect([...kinds].sort()).toEqual(["error", "intent", "lookup_absent", "lookup_found", "send", "status", "timeout"]);
    const outcomesSeen = new Set((a["SELECT * FROM reconciliations ORDER BY id"] as { outcome: string }[]).map((r) => r.outcome));
    expect([...outcomesSeen].sort()).toEqual(["clean", "drift", "skipped"]);
    expect((a["SELECT * FROM orders ORDER BY client_order_id"] as { strategy: string }[]).some((o) => o.strategy === "reconcile")).toBe(true);
    expect((a["SELECT * FROM book_corrections ORDER BY id"] as unknown[]).length).toBe(1);
    for (const q of TABLES) expect({ q, rows: b[q] }).toEqual({ q, rows: a[q] });
  });

  it("on PostgreSQL, survives its connections being killed between calls: the next call opens a new one", async () => {
    const bot = await botOn("postgresql", journals);
    bots = [bot];
    await bot.writer.sendOnce(buy("AAPL", 5, 0));
    const [{ d }] = (await bot.rows<{ d: string }>(`SELECT current_database() AS d`)) as [{ d: string }];
    const admin = new pg.Client({ connectionString: journals.server().url });
    await admin.connect();
    try {
      const killed = await admin.query<{ n: number }>(`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1`, [d]);
      expect(killed.rows[0]!.n).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    // pg_terminate_backend returns once the signal is sent, not once the backend has gone: a call
    // made in that moment is sent on a connection about to close and fails (as the Python writer's
    // test says). "Between calls" is after the kill has landed: the pool has seen the close.
    const pool = (bot.writer as PgJournalWriter).pool;
    await vi.waitFor(() => expect(pool.idleCount).toBe(0), { timeout: 5000, interval: 20 });
    await bot.writer.heartbeat();
    expect((await bot.writer.sendOnce(buy("AAPL", 5, 1))).kind).toBe("placed");
    expect(await bot.rows(`SELECT count(*)::int AS n FROM orders WHERE state = 'filled'`)).toEqual([{ n: 2 }]);
  });

  it("on PostgreSQL, waits for a row another transaction holds as long as SQLite's busy timeout, then fails the call with 55P03", async () => {
    const bot = await botOn("postgresql", journals);
    bots = [bot];
    const [{ d }] = (await bot.rows<{ d: string }>(`SELECT current_database() AS d`)) as [{ d: string }];
    const holder = new pg.Client({ connectionString: journals.server().url.replace(/\/postgres$/, `/${d}`) });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT * FROM breakers WHERE bot_id = 'bot-a' FOR UPDATE");
      await expect(bot.writer.trip("while the console holds the row")).rejects.toMatchObject({ code: "55P03" });
      await holder.query("ROLLBACK");
    } finally {
      await holder.end();
    }
    expect(await bot.writer.trip("once it let go")).toBe(true);
  });
});
