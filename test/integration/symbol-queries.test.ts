/**
 * The symbol page's reads against real journals: one written by the JournalWriter trading on the
 * simulator (test/helpers/drift-scenario.ts tells its story), one of 20 days written in bulk.
 */
import type Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openJournalReader, openJournalWriter } from "@/lib/db/journal-file";
import * as schema from "@/lib/db/schema";
import { CHART_CARRY_IN_SQL, CHART_ROLLUPS_SQL, CHART_ROWS_SQL, getSymbolChart } from "@/lib/queries/symbol-chart";
import { findBotSymbol, getSymbolState, listSymbolOrders, ORDER_EVENTS_SQL, SYMBOL_ORDERS_SQL } from "@/lib/queries/symbol";
import { BUY_500_ID, writeDriftScenario, type DriftScenario } from "../helpers/drift-scenario";
import { migratedJournal, migrationsDir } from "../helpers/journal";

const START = new Date("2026-08-10T15:30:00.000Z");
const ms = (iso: string) => Date.parse(iso);

function reader(file: string) {
  const { db: sqlite } = openJournalReader(file, { migrationsDir });
  return { sqlite, db: drizzle(sqlite, { schema }) };
}

const thresholds = { heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000, doubtfulGraceMs: 30_000 };

describe("a bot whose AAPL book drifts behind its back (JournalWriter on the simulator)", () => {
  let s: DriftScenario;
  let j: ReturnType<typeof reader>;
  let all: { kind: "custom"; from: string; to: string };
  let now: Date;

  beforeAll(async () => {
    s = await writeDriftScenario({ startAt: START });
    j = reader(s.file);
    all = { kind: "custom", from: "2026-08-10T15:29:00.000Z", to: "2026-08-10T15:35:00.000Z" };
    now = new Date(ms(s.endAt) + 1_000);
  });
  afterAll(() => j?.sqlite.close());

  it("draws every compared cycle of the window and shades both AAPL drifts, the one-cycle one included", async () => {
    const chart = getSymbolChart({ db: j.db, botId: "bot-a", symbol: "AAPL", range: all, now });
    expect(chart.samples).toBe(180);
    expect(chart.points).toHaveLength(180);
    expect(chart.bucketMs).toBeNull();
    expect(chart.points[0]).toMatchObject({ t: ms(s.cycleAt[1]!), ours: 500, theirs: 500, drift: "none" });
    expect(chart.points[60]).toMatchObject({ t: ms(s.cycleAt[61]!), ours: 500, theirs: 300, drift: "size_drift" });
    expect(chart.points.at(-1)).toMatchObject({ ours: 400, theirs: 400, drift: "none" });
    expect(chart.episodes).toEqual([
      { kind: "size_drift", from: ms(s.cycleAt[61]!), to: ms(s.cycleAt[71]!), ongoing: false, samples: 10, merged: 1 },
      { kind: "size_drift", from: ms(s.cycleAt[120]!), to: ms(s.cycleAt[121]!), ongoing: false, samples: 1, merged: 1 },
    ]);
    // The window reaches past now, so the page keeps polling it.
    expect(chart.window).toEqual({ from: all.from, to: all.to, live: true });
    expect(chart.notice).toBeNull();
  });

  it("marks each trip and clear of the bot's breaker, with the cycle that caused a trip", async () => {
    const chart = getSymbolChart({ db: j.db, botId: "bot-a", symbol: "AAPL", range: all, now });
    expect(chart.markers.map((m) => [m.kind, m.actor])).toEqual([
      ["trip", "bot"],
      ["clear", "operator:alice"],
      ["trip", "bot"],
      ["clear", "operator:alice"],
      ["trip", "bot"],
      ["clear", "operator:alice"],
      ["trip", "bot"],
    ]);
    const [first, , second, , third, , fourth] = chart.markers;
    expect(first).toMatchObject({ at: s.cycleAt[61], reason: "size drift AAPL: book +500 vs exchange +300" });
    expect(second).toMatchObject({ at: s.cycleAt[90], reason: "unknown position BTCUSDT +0.5" });
    expect(third).toMatchObject({ at: s.cycleAt[120], reason: "size drift AAPL: book +500 vs exchange +499" });
    expect(fourth?.reason).toMatch(/^order q500-\w+ unknown: send failed: .+; then lookup failed/);
    expect(fourth?.reconciliationId).toBeNull();
    const causes = j.sqlite.prepare(`SELECT at FROM reconciliations WHERE id = ?`);
    expect((causes.get(first!.reconciliationId) as { at: string }).at).toBe(s.cycleAt[61]);
    expect(chart.markers.filter((m) => m.kind === "clear").map((m) => m.at)).toEqual(s.clears);
  });

  it("keeps the one-cycle drift and both books' extremes when squeezed into a few points", async () => {
    const chart = getSymbolChart({ db: j.db, botId: "bot-a", symbol: "AAPL", range: all, now, maxPoints: 28 });
    expect(chart.points.length).toBeLessThanOrEqual(28);
    expect(chart.bucketMs).not.toBeNull();
    expect(chart.episodes.map((e) => [e.kind, e.from, e.samples])).toEqual([
      ["size_drift", ms(s.cycleAt[61]!), 10],
      ["size_drift", ms(s.cycleAt[120]!), 1],
    ]);
    expect(Math.min(...chart.points.map((p) => p.theirs))).toBe(300);
    expect(chart.points.map((p) => p.theirs)).toContain(499);
  });

  it("shades a position the bot never opened, for the one cycle it lasted", async () => {
    const chart = getSymbolChart({ db: j.db, botId: "bot-a", symbol: "BTCUSDT", range: all, now });
    expect(chart.episodes).toEqual([{ kind: "unknown_position", from: ms(s.cycleAt[90]!), to: ms(s.cycleAt[91]!), ongoing: false, samples: 1, merged: 1 }]);
    // Cycles that do not mention BTCUSDT saw it flat on both sides.
    expect(chart.points.find((p) => p.t === ms(s.cycleAt[91]!))).toMatchObject({ ours: 0, theirs: 0, drift: "none" });
    expect(chart.points.find((p) => p.t === ms(s.cycleAt[90]!))).toMatchObject({ ours: 0, theirs: 0.5, drift: "unknown_position" });
  });

  it("starts a window that opens mid-drift with the state of the cycle before it", async () => {
    const from = new Date(ms(s.cycleAt[65]!) + 500).toISOString();
    const chart = getSymbolChart({ db: j.db, botId: "bot-a", symbol: "AAPL", range: { kind: "custom", from, to: s.cycleAt[80]! }, now });
    expect(chart.points[0]).toMatchObject({ t: ms(from), ours: 500, theirs: 300 });
    expect(chart.samples).toBe(15);
    expect(chart.episodes[0]).toMatchObject({ kind: "size_drift", from: ms(from), to: ms(s.cycleAt[71]!) });
  });

  it("follows now for the last 15 min, and points at the latest data once it is older than that", async () => {
    const live = getSymbolChart({ db: j.db, botId: "bot-a", symbol: "AAPL", range: { kind: "15m" }, now });
    expect(live.window.live).toBe(true);
    expect(live.samples).toBe(180);
    expect(live.notice).toBeNull();

    const later = new Date(ms(s.endAt) + 3 * 86_400_000);
    const review = getSymbolChart({ db: j.db, botId: "bot-a", symbol: "AAPL", range: { kind: "15m" }, now: later });
    // Days-old books are not drawn as if they still held.
    expect(review.points).toEqual([]);
    expect(review.latestAt).toBe(s.cycleAt[180]);
    expect(review.notice?.offers.map((o) => o.label)).toEqual(["the 15 min up to it", "the hour up to it", "its trading day"]);
    const day = getSymbolChart({ db: j.db, botId: "bot-a", symbol: "AAPL", range: { kind: "day" }, now: later });
    expect(day.window).toEqual({ from: "2026-08-10T00:00:00.000Z", to: "2026-08-11T00:00:00.000Z", live: false });
    expect(day.samples).toBe(180);
  });

  it("lists the symbol's orders newest first, each with its event history", async () => {
    const { orders, more } = listSymbolOrders({ db: j.db, botId: "bot-a", symbol: "AAPL", limit: 20, now, ...thresholds });
    expect(more).toBe(false);
    expect(orders.map((o) => [o.side, o.qty, o.state, o.filledQty, o.attempts])).toEqual([
      ["sell", 100, "filled", 100, 1],
      ["buy", 500, "filled", 500, 1],
    ]);
    expect(orders[0]!.events.map((e) => e.kind)).toEqual(["intent", "timeout", "lookup_found"]);
    expect(orders[0]!.lastError).toBeNull();
    expect(orders[1]).toMatchObject({ clientOrderId: BUY_500_ID, class: "settled", avgPrice: expect.any(Number) });
    expect(orders[1]!.events.map((e) => [e.kind, e.actor])).toEqual([
      ["intent", "bot"],
      ["send", "bot"],
    ]);
    expect(JSON.parse(orders[1]!.events[1]!.detail)).toMatchObject({ status: "filled", filledQty: 500 });
  });

  it("pages the orders: a short page says there are more", async () => {
    const page = listSymbolOrders({ db: j.db, botId: "bot-a", symbol: "AAPL", limit: 1, now, ...thresholds });
    expect(page.more).toBe(true);
    expect(page.orders.map((o) => o.side)).toEqual(["sell"]);
  });

  it("flags an order nobody can settle as doubtful, with its last error", async () => {
    const { orders } = listSymbolOrders({ db: j.db, botId: "bot-a", symbol: "ETHUSDT", limit: 20, now, ...thresholds });
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ state: "unknown", class: "doubtful", attempts: 1, lastError: expect.stringMatching(/lookup failed/) });
    expect(orders[0]!.events.map((e) => e.kind)).toEqual(["intent", "timeout", "error", "error", "status"]);
  });

  it("shows the bot's reduce-only close of the position it never opened", async () => {
    const { orders } = listSymbolOrders({ db: j.db, botId: "bot-a", symbol: "BTCUSDT", limit: 20, now, ...thresholds });
    expect(orders.map((o) => [o.strategy, o.side, o.qty, o.state])).toEqual([["reconcile", "sell", 0.5, "filled"]]);
  });

  it("gives the symbol's current book line and its halted bot", async () => {
    const state = await getSymbolState({ db: j.db, botId: "bot-a", symbol: "AAPL", now, ordersLimit: 20, ...thresholds });
    if (!state.found) throw new Error("expected the symbol to be found");
    expect(state.line).toMatchObject({ ours: 400, theirs: 400, difference: 0, drift: "none", driftSince: null, at: s.cycleAt[180], qtyStep: 1 });
    expect(state.latestAt).toBe(s.cycleAt[180]);
    expect(state.bot.breaker).toMatchObject({ halted: true, changedBy: "bot" });
    expect(state.bot.status).toBe("halted");
    expect(state.orders).toHaveLength(2);
    expect(state.moreOrders).toBe(false);
  });

  it("reads a symbol a later cycle left out as flat on both sides", async () => {
    const state = await getSymbolState({ db: j.db, botId: "bot-a", symbol: "BTCUSDT", now, ordersLimit: 20, ...thresholds });
    if (!state.found) throw new Error("expected the symbol to be found");
    expect(state.line).toMatchObject({ ours: 0, theirs: 0, drift: "none", at: s.cycleAt[180] });
  });

  it("tells an unknown bot from an unknown symbol, and names the bot's symbols", async () => {
    expect(findBotSymbol({ db: j.db, botId: "bot-z", symbol: "AAPL" })).toEqual({
      found: false,
      reason: "no_bot",
      botId: "bot-z",
      symbol: "AAPL",
      symbols: [],
    });
    expect(findBotSymbol({ db: j.db, botId: "bot-a", symbol: "DOGE" })).toEqual({
      found: false,
      reason: "no_symbol",
      botId: "bot-a",
      symbol: "DOGE",
      symbols: ["AAPL", "BTCUSDT"],
    });
    // ETHUSDT was never reconciled, but the bot ordered it.
    expect(findBotSymbol({ db: j.db, botId: "bot-a", symbol: "ETHUSDT" })).toEqual({ found: true });
    expect(await getSymbolState({ db: j.db, botId: "bot-a", symbol: "DOGE", now, ordersLimit: 20, ...thresholds })).toMatchObject({
      found: false,
      reason: "no_symbol",
    });
  });

  it("reads by index, never by scanning a table", async () => {
    const plan = (text: string) =>
      (j.sqlite.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...Array.from({ length: (text.match(/\?/g) ?? []).length }, () => "x")) as { detail: string }[])
        .map((r) => r.detail)
        .join("\n");
    const chart = plan(CHART_ROWS_SQL);
    expect(chart).toMatch(/SEARCH r USING INDEX reconciliations_bot_at_idx \(bot_id=\? AND at>\? AND at<\?\)/);
    expect(chart).toMatch(/SEARCH p USING INDEX sqlite_autoindex_reconciliation_positions_1 \(reconciliation_id=\? AND symbol=\?\)/);
    // The carry-in reads one row by a backward seek, then joins that single row.
    expect(plan(CHART_CARRY_IN_SQL)).toMatch(/SEARCH reconciliations USING INDEX reconciliations_bot_at_idx \(bot_id=\? AND at>\? AND at<\?\)/);
    // A long window: one range scan on each rollup's primary key.
    const rollups = plan(CHART_ROLLUPS_SQL);
    expect(rollups).toMatch(/SEARCH c USING PRIMARY KEY \(bot_id=\? AND bucket>\? AND bucket<\?\)/);
    expect(rollups).toMatch(/SEARCH p USING PRIMARY KEY \(bot_id=\? AND symbol=\? AND bucket=\?\)/);
    expect(rollups).not.toMatch(/^SCAN/m);
    const orders = plan(SYMBOL_ORDERS_SQL);
    expect(orders).toMatch(/SEARCH orders USING INDEX orders_bot_symbol_created_idx \(bot_id=\? AND symbol=\?\)/);
    expect(plan(ORDER_EVENTS_SQL)).toMatch(/order_events_order_idx/);
    for (const p of [chart, orders, plan(ORDER_EVENTS_SQL)]) expect(p).not.toMatch(/^SCAN (r|p|orders|order_events|reconciliations)\b/m);
  });
});

describe("20 days of history", () => {
  let sqlite: Database.Database;
  let db: ReturnType<typeof reader>["db"];
  const T0 = Date.parse("2026-07-01T00:00:00.000Z");
  const EVERY = 10_000;
  const N = (20 * 86_400_000) / EVERY;
  const ONE_CYCLE = 123_457;

  beforeAll(() => {
    const file = migratedJournal("twenty-days");
    const w = openJournalWriter(file, { migrationsDir }).db;
    // A bot that reconciles AAPL every 10 s for 20 days (172,800 cycles), and another bot on the same
    // file whose AAPL drifts all along (it must not leak into bot-a's chart).
    w.transaction(() => {
      w.prepare(`INSERT INTO bots VALUES ('bot-a', 'sim', 'qa', ?), ('bot-b', 'sim', 'qb', ?)`).run(
        new Date(T0 + N * EVERY).toISOString(),
        new Date(T0).toISOString(),
      );
      const rec = w.prepare(`INSERT INTO reconciliations (bot_id, at, outcome) VALUES (?, ?, ?)`);
      const pos = w.prepare(`INSERT INTO reconciliation_positions VALUES (?, ?, ?, ?, 1, 92)`);
      for (let i = 0; i < N; i++) {
        const at = new Date(T0 + i * EVERY).toISOString();
        const drift = i === ONE_CYCLE;
        pos.run(rec.run("bot-a", at, drift ? "drift" : "clean").lastInsertRowid, "AAPL", 500, drift ? 498 : 500);
        if (i % 1000 === 0) pos.run(rec.run("bot-b", at, "drift").lastInsertRowid, "AAPL", 500, 100);
      }
    })();
    w.close();
    ({ sqlite, db } = reader(file));
  }, 120_000);
  afterAll(() => sqlite?.close());

  it("draws 20 days in at most 2,000 points and still shades the one drifting cycle", async () => {
    const range = { kind: "custom" as const, from: new Date(T0).toISOString(), to: new Date(T0 + N * EVERY).toISOString() };
    const chart = getSymbolChart({ db, botId: "bot-a", symbol: "AAPL", range, now: new Date(T0 + 30 * 86_400_000) });
    expect(chart.samples).toBe(N);
    expect(chart.points.length).toBeLessThanOrEqual(2_000);
    expect(chart.points.length).toBeGreaterThan(100);
    // Read through the five-minute rollups: the drift starts on its cycle; its end is known to the
    // five minutes (the last cycle of its rollup), far below what 20 days can draw.
    expect(chart.episodes).toEqual([{ kind: "size_drift", from: T0 + ONE_CYCLE * EVERY, to: expect.any(Number), ongoing: false, samples: 1, merged: 1 }]);
    expect(chart.episodes[0]!.to).toBeGreaterThanOrEqual(T0 + (ONE_CYCLE + 1) * EVERY);
    expect(chart.episodes[0]!.to).toBeLessThan(T0 + ONE_CYCLE * EVERY + 5 * 60_000);
    expect(chart.points).toContainEqual({ t: T0 + ONE_CYCLE * EVERY, ours: 500, theirs: 498, drift: "size_drift" });
  });

  it("gives each bot its own chart on a shared journal", async () => {
    const range = { kind: "custom" as const, from: new Date(T0).toISOString(), to: new Date(T0 + 86_400_000).toISOString() };
    const b = getSymbolChart({ db, botId: "bot-b", symbol: "AAPL", range, now: new Date(T0 + 30 * 86_400_000) });
    expect(b.samples).toBe(9);
    expect(b.episodes).toHaveLength(1);
    expect(b.episodes[0]).toMatchObject({ kind: "size_drift", samples: 9, ongoing: true });
  });
});
