import "server-only";
import type { JournalDb } from "../db/console";
import { byteOrder, jsonTextArraySql } from "../db/dialect";
import { queryOf, type Dialect, type JournalQuery } from "../db/query";
import { all, one, runReads, runReadsSync, type Reads } from "../db/reads";
import type { OrderEventRow, OrderRow } from "../db/schema";
import { classifyOrder, type OrderClass } from "../journal/order-state";
import { latestComparedCycleSql, lineAsOfLatestCycle } from "../reconcile/current-line";
import { diffLine } from "../reconcile/diff";
import { MAX_ORDERS } from "../url-state/symbol";
import { listBots, type BotSummary } from "./bots";
import { markOfLineReads } from "./last-mark";
import type { OverviewLine } from "./overview";

/** One bot's book against the exchange's for one symbol, as of its latest compared cycle. */
/** The overview's line for one symbol, without what the symbol page already names or shows elsewhere. */
export type SymbolLine = Omit<OverviewLine, "botId" | "symbol" | "ack" | "ackLapsed">;

/** `detail` is the event's JSON, as the writer stored it. */
export type SymbolOrderEvent = Pick<OrderEventRow, "id" | "at" | "kind" | "actor" | "detail">;

export interface SymbolOrder extends Pick<
  OrderRow,
  | "clientOrderId"
  | "strategy"
  | "side"
  | "qty"
  | "bar"
  | "state"
  | "exchangeOrderId"
  | "filledQty"
  | "avgPrice"
  | "attempts"
  | "lastError"
  | "createdAt"
  | "updatedAt"
> {
  /** settled, doubtful (nobody knows what the exchange has) or live. */
  class: OrderClass;
  events: SymbolOrderEvent[];
}

export type SymbolLookup = { found: true } | { found: false; reason: "no_bot" | "no_symbol"; botId: string; symbol: string; symbols: string[] };

export interface SymbolState {
  found: true;
  readAt: string;
  botId: string;
  symbol: string;
  bot: BotSummary;
  /** Null when no compared cycle has mentioned the symbol yet (it only has orders). */
  line: SymbolLine | null;
  /** Time of the bot's latest compared reconciliation: where "now" is for a journal under review. */
  latestAt: string | null;
  orders: SymbolOrder[];
  /** More orders exist beyond `orders` (older ones). */
  moreOrders: boolean;
}

/**
 * Whether the bot exists and has ever had this symbol: a book line (latest_positions, one row per
 * bot and symbol) or an order (an index seek on orders (bot_id, symbol, created_at)).
 */
function* findBotSymbolReads(dialect: Dialect, botId: string, symbol: string): Reads<SymbolLookup> {
  const row = (yield* one<{ bot: unknown; line: unknown; orders: unknown }>(
    `SELECT EXISTS (SELECT 1 FROM bots WHERE bot_id = ?) AS bot,
            EXISTS (SELECT 1 FROM latest_positions WHERE bot_id = ? AND symbol = ?) AS line,
            EXISTS (SELECT 1 FROM orders WHERE bot_id = ? AND symbol = ?) AS orders`,
    [botId, botId, symbol, botId, symbol],
  ))!;
  // 1 or 0 on SQLite, true or false on PostgreSQL.
  const bot = Boolean(row.bot);
  if (bot && (Boolean(row.line) || Boolean(row.orders))) return { found: true };
  const symbols = bot
    ? (yield* all<{ symbol: string }>(`SELECT symbol FROM latest_positions WHERE bot_id = ? ORDER BY ${byteOrder(dialect, "symbol")}`, [botId])).map(
        (r) => r.symbol,
      )
    : [];
  return { found: false, reason: bot ? "no_symbol" : "no_bot", botId, symbol, symbols };
}

export function findBotSymbol(params: { db: JournalDb; botId: string; symbol: string }): SymbolLookup {
  return runReadsSync(params.db, findBotSymbolReads("sqlite", params.botId, params.symbol));
}

const LATEST_COMPARED_SQL = `SELECT id, at FROM reconciliations WHERE id = ${latestComparedCycleSql("?")}`;

/** The bot's latest compared reconciliation: one backward seek on reconciliations (bot_id, at). */
export function* latestComparedCycleReads(botId: string): Reads<{ id: number; at: string } | null> {
  return (yield* one<{ id: number; at: string }>(LATEST_COMPARED_SQL, [botId])) ?? null;
}

function* symbolLineReads(params: { botId: string; symbol: string; now: Date; latest: { id: number; at: string } | null }): Reads<SymbolLine | null> {
  const { botId, symbol, now, latest } = params;
  const r = yield* one<{
    reconciliationId: number;
    at: string;
    ours: number;
    theirs: number;
    qtyStep: number;
    markPrice: number | null;
    driftSince: string | null;
  }>(
    `SELECT reconciliation_id AS reconciliationId, at, ours, theirs, qty_step AS qtyStep, mark_price AS markPrice, drift_since AS driftSince
     FROM latest_positions WHERE bot_id = ? AND symbol = ?`,
    [botId, symbol],
  );
  if (!r) return null;
  const { ours, theirs, at } = lineAsOfLatestCycle(r, latest);
  const mark = yield* markOfLineReads({ botId, symbol, markPrice: r.markPrice });
  const d = diffLine({ symbol, ours, theirs, qtyStep: r.qtyStep, markPrice: mark.markPrice });
  const driftSince = d.drift === "none" ? null : r.driftSince;
  const since = driftSince === null ? NaN : Date.parse(driftSince);
  return {
    ours,
    theirs,
    difference: d.difference,
    steps: d.steps,
    qtyStep: r.qtyStep,
    markPrice: mark.markPrice,
    markAt: mark.markAt,
    driftNotional: d.driftNotional,
    drift: d.drift,
    driftSince,
    driftForMs: Number.isNaN(since) ? null : now.getTime() - since,
    at,
  };
}

/** Newest first through orders (bot_id, symbol, created_at); LIMIT stops the walk. */
const symbolOrdersSql = (dialect: Dialect) => `
  SELECT client_order_id AS clientOrderId, strategy, side, qty, bar, state, exchange_order_id AS exchangeOrderId,
         filled_qty AS filledQty, avg_price AS avgPrice, attempts, last_error AS lastError,
         created_at AS createdAt, updated_at AS updatedAt
  FROM orders WHERE bot_id = ? AND symbol = ?
  ORDER BY created_at DESC, ${byteOrder(dialect, "client_order_id")} DESC LIMIT ?`;
export const SYMBOL_ORDERS_SQL = symbolOrdersSql("sqlite");

/** The history of a page of orders (a JSON array of ids) through order_events (client_order_id, id). */
const orderEventsSql = (dialect: Dialect) => `
  SELECT client_order_id AS clientOrderId, id, at, kind, actor, detail FROM order_events
  WHERE client_order_id IN (${jsonTextArraySql(dialect, "?")}) ORDER BY client_order_id, id`;
export const ORDER_EVENTS_SQL = orderEventsSql("sqlite");

type OrdersParams = { botId: string; symbol: string; limit: number; now: Date; doubtfulGraceMs: number };

/**
 * The newest `limit` orders of a bot on a symbol, each with its whole event history. Reads `limit`
 * + 1 rows of orders and their events by index: the cost follows the page size, never the history.
 */
function* symbolOrdersReads(dialect: Dialect, params: OrdersParams): Reads<{ orders: SymbolOrder[]; more: boolean }> {
  const { botId, symbol, now } = params;
  const limit = Math.max(1, Math.min(MAX_ORDERS, Math.floor(params.limit)));
  const rows = yield* all<Omit<SymbolOrder, "class" | "events">>(symbolOrdersSql(dialect), [botId, symbol, limit + 1]);
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const events = new Map<string, SymbolOrderEvent[]>();
  if (page.length > 0) {
    const found = yield* all<SymbolOrderEvent & { clientOrderId: string }>(orderEventsSql(dialect), [JSON.stringify(page.map((o) => o.clientOrderId))]);
    for (const { clientOrderId, ...e } of found) {
      const list = events.get(clientOrderId) ?? [];
      list.push(e);
      events.set(clientOrderId, list);
    }
  }
  return {
    more,
    orders: page.map((o) => ({
      ...o,
      class: classifyOrder(o, { now, graceMs: params.doubtfulGraceMs }),
      events: events.get(o.clientOrderId) ?? [],
    })),
  };
}

export function listSymbolOrders(params: OrdersParams & { db: JournalDb }): { orders: SymbolOrder[]; more: boolean } {
  return runReadsSync(params.db, symbolOrdersReads("sqlite", params));
}

/**
 * Everything on the symbol page but the chart, in O(bots + page of orders): the bot's card, the
 * symbol's current book line and its newest orders. An unknown bot or symbol is a value, not a
 * throw, so the page and the poll can both say which of the two is missing. On any engine.
 */
export async function getSymbolState(params: {
  db: JournalDb | JournalQuery;
  botId: string;
  symbol: string;
  now: Date;
  ordersLimit: number;
  heartbeatStaleMs: number;
  reconciliationStaleMs: number;
  doubtfulGraceMs: number;
}): Promise<SymbolState | Extract<SymbolLookup, { found: false }>> {
  const { botId, symbol, now } = params;
  const q = queryOf(params.db);
  const lookup = await runReads(q, findBotSymbolReads(q.dialect, botId, symbol));
  if (!lookup.found) return lookup;
  const bot = (await listBots({ ...params, db: q })).find((b) => b.botId === botId);
  if (!bot) return { found: false, reason: "no_bot", botId, symbol, symbols: [] };
  const latest = await runReads(q, latestComparedCycleReads(botId));
  const { orders, more } = await runReads(q, symbolOrdersReads(q.dialect, { ...params, limit: params.ordersLimit }));
  return {
    found: true,
    readAt: now.toISOString(),
    botId,
    symbol,
    bot,
    line: await runReads(q, symbolLineReads({ botId, symbol, now, latest })),
    latestAt: latest?.at ?? null,
    orders,
    moreOrders: more,
  };
}
