/**
 * A drift and the doubtful order that would explain it, on a real journal written by the
 * JournalWriter trading on the simulator: an AAPL buy of 98 whose reply was lost and whose lookups
 * failed (unknown), filled on the exchange, so the next reconciliation finds AAPL +98 against 0.
 * The overview's line, the symbol page's line and the doubtful card each name the other side.
 */
import { queryOf } from "@/lib/db/query";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "@/lib/env";
import { DOUBTFUL_SIZES_SQL } from "@/lib/queries/drift-explained";
import { loadDoubtfulOrders, loadOverview, loadSymbolState } from "@/lib/queries/screens";
import { botOnSim, SYMBOLS } from "../helpers/bot";
import { consoleDb } from "../helpers/console-db";
import { migratedJournal } from "../helpers/journal";

const config = { heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000, doubtfulGraceMs: 30_000 } as Env;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

async function unknownBuyOf98() {
  const bot = botOnSim();
  cleanups.push(bot.close);
  bot.sim.inject({ on: "create", fault: "timeout_after_accept", symbol: "AAPL" });
  bot.sim.inject({ on: "find", fault: "lookup_fail", times: 3 });
  const buy = await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 98, bar: "2026-08-10T15:30:00Z" });
  // Another bot on the same journal with a doubtful AAPL buy of 98 too, which never reached the
  // exchange: the same size on the same symbol, but not this bot's book, so it explains nothing.
  const beta = botOnSim({ file: bot.file, botId: "bot-b", prefix: "q501" });
  cleanups.push(beta.close);
  beta.sim.inject({ on: "create", fault: "timeout_not_received", times: 3 });
  beta.sim.inject({ on: "find", fault: "lookup_fail", times: 3 });
  const other = await beta.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 98, bar: "2026-08-10T15:30:00Z" });
  expect([buy.order.state, other.order.state]).toEqual(["unknown", "unknown"]);
  await bot.writer.reconcile({ symbols: SYMBOLS.map((s) => s.symbol) });
  const { db, close } = consoleDb(bot.file);
  cleanups.push(close);
  return {
    bot,
    db,
    buy: buy.order.clientOrderId,
    other: other.order.clientOrderId,
    ctx: { db, q: queryOf(db), config, now: new Date(bot.sim.now().getTime() + 1_000), names: true },
  };
}

describe("a drift and the doubtful order that would explain it", () => {
  it("names the unknown buy of 98 on the overview's AAPL line, and nothing on a line in sync", async () => {
    const { ctx, buy } = await unknownBuyOf98();
    const lines = (await loadOverview(ctx)).lines;
    expect(lines.find((l) => l.symbol === "AAPL")).toMatchObject({
      ours: 0,
      theirs: 98,
      drift: "unknown_position",
      explainedBy: { botId: "bot-a", clientOrderIds: [buy], ifFilled: 98 },
    });
    expect(lines.filter((l) => l.explainedBy)).toHaveLength(1);
  });

  it("names it on the symbol page's book line", async () => {
    const { ctx, buy } = await unknownBuyOf98();
    const state = await loadSymbolState({ ...ctx, botId: "bot-a", symbol: "AAPL", ordersLimit: 20 });
    expect(state.found && state.line).toMatchObject({ explainedBy: { botId: "bot-a", clientOrderIds: [buy], ifFilled: 98 } });
  });

  it("tells the doubtful card which drift its fill would explain, and says nothing on the order that explains none", async () => {
    const { ctx, buy, other } = await unknownBuyOf98();
    const { orders } = await loadDoubtfulOrders({ ...ctx, botId: null });
    expect(orders.find((o) => o.clientOrderId === buy)?.mayExplain).toEqual({ symbol: "AAPL", ours: 0, theirs: 98, clientOrderIds: [buy] });
    expect(orders.find((o) => o.clientOrderId === other)?.mayExplain).toBeNull();
  });

  it("drops the link once the order is settled", async () => {
    const { ctx, bot, buy } = await unknownBuyOf98();
    await bot.writer.refresh(buy); // the lookups work again: found filled
    expect((await loadOverview(ctx)).lines.find((l) => l.symbol === "AAPL")?.explainedBy ?? null).toBeNull();
  });

  it("reads the doubtful orders through the partial index of unsettled orders, with or without a bot", async () => {
    const db = new Database(migratedJournal("plan"));
    cleanups.push(() => db.close());
    const plan = (sql: string, n: number) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array.from({ length: n }, () => "x")) as { detail: string }[]).map((r) => r.detail).join("\n");
    expect(plan(DOUBTFUL_SIZES_SQL(false), 1)).toMatch(/USING (COVERING )?INDEX orders_unsettled_idx/);
    expect(plan(DOUBTFUL_SIZES_SQL(true), 2)).toMatch(/USING (COVERING )?INDEX orders_unsettled_idx \(bot_id=\?\)/);
  });
});
