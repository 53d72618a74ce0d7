import "server-only";
import { sql } from "drizzle-orm";
import type { JournalDb } from "../db/console";
import type { OrderEventRow, OrderRow } from "../db/schema";
import { classifyOrder, type OrderClass } from "../journal/order-state";
import { latestComparedCycleSql, lineAsOfLatestCycle } from "../reconcile/current-line";
import { diffLine } from "../reconcile/diff";
import { MAX_ORDERS } from "../url-state/symbol";
import { listBots, type BotSummary } from "./bots";
import { markOfLine } from "./last-mark";
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
export function findBotSymbol(params: { db: JournalDb; botId: string; symbol: string }): SymbolLookup {
  const { db, botId, symbol } = params;
  const row = db.get<{ bot: number; line: number; orders: number }>(sql`
    SELECT EXISTS (SELECT 1 FROM bots WHERE bot_id = ${botId}) AS bot,
           EXISTS (SELECT 1 FROM latest_positions WHERE bot_id = ${botId} AND symbol = ${symbol}) AS line,
           EXISTS (SELECT 1 FROM orders WHERE bot_id = ${botId} AND symbol = ${symbol}) AS orders`);
  if (row.bot && (row.line || row.orders)) return { found: true };
  const symbols = row.bot
    ? db.all<{ symbol: string }>(sql`SELECT symbol FROM latest_positions WHERE bot_id = ${botId} ORDER BY symbol`).map((r) => r.symbol)
    : [];
  return { found: false, reason: row.bot ? "no_symbol" : "no_bot", botId, symbol, symbols };
}

/** The bot's latest compared reconciliation: one backward seek on reconciliations (bot_id, at). */
export function latestComparedCycle(params: { db: JournalDb; botId: string }): { id: number; at: string } | null {
  return (
    params.db.get<{ id: number; at: string } | undefined>(sql`
      SELECT r0.id AS id, r0.at AS at FROM (SELECT ${params.botId} AS bot_id) b0
      JOIN reconciliations r0 ON r0.id = ${sql.raw(latestComparedCycleSql("b0.bot_id"))}`) ?? null
  );
}

async function getSymbolLine(params: {
  db: JournalDb;
  botId: string;
  symbol: string;
  now: Date;
  latest: { id: number; at: string } | null;
}): Promise<SymbolLine | null> {
  const { db, botId, symbol, now, latest } = params;
  const r = db.get<
    { reconciliationId: number; at: string; ours: number; theirs: number; qtyStep: number; markPrice: number | null; driftSince: string | null } | undefined
  >(sql`
    SELECT reconciliation_id AS reconciliationId, at, ours, theirs, qty_step AS qtyStep, mark_price AS markPrice, drift_since AS driftSince
    FROM latest_positions WHERE bot_id = ${botId} AND symbol = ${symbol}`);
  if (!r) return null;
  const { ours, theirs, at } = lineAsOfLatestCycle(r, latest);
  const mark = await markOfLine({ db, botId, symbol, markPrice: r.markPrice });
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
export const SYMBOL_ORDERS_SQL = `
  SELECT client_order_id AS clientOrderId, strategy, side, qty, bar, state, exchange_order_id AS exchangeOrderId,
         filled_qty AS filledQty, avg_price AS avgPrice, attempts, last_error AS lastError,
         created_at AS createdAt, updated_at AS updatedAt
  FROM orders WHERE bot_id = ? AND symbol = ?
  ORDER BY created_at DESC, client_order_id DESC LIMIT ?`;

/** The history of a page of orders (a JSON array of ids) through order_events (client_order_id, id). */
export const ORDER_EVENTS_SQL = `
  SELECT client_order_id AS clientOrderId, id, at, kind, actor, detail FROM order_events
  WHERE client_order_id IN (SELECT value FROM json_each(?)) ORDER BY client_order_id, id`;

/**
 * The newest `limit` orders of a bot on a symbol, each with its whole event history. Reads `limit`
 * + 1 rows of orders and their events by index: the cost follows the page size, never the history.
 */
export function listSymbolOrders(params: { db: JournalDb; botId: string; symbol: string; limit: number; now: Date; doubtfulGraceMs: number }): {
  orders: SymbolOrder[];
  more: boolean;
} {
  const { botId, symbol, now } = params;
  const client = params.db.$client;
  const limit = Math.max(1, Math.min(MAX_ORDERS, Math.floor(params.limit)));
  const rows = client.prepare(SYMBOL_ORDERS_SQL).all(botId, symbol, limit + 1) as Omit<SymbolOrder, "class" | "events">[];
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const events = new Map<string, SymbolOrderEvent[]>();
  if (page.length > 0) {
    const all = client.prepare(ORDER_EVENTS_SQL).all(JSON.stringify(page.map((o) => o.clientOrderId))) as (SymbolOrderEvent & { clientOrderId: string })[];
    for (const { clientOrderId, ...e } of all) {
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

/**
 * Everything on the symbol page but the chart, in O(bots + page of orders): the bot's card, the
 * symbol's current book line and its newest orders. An unknown bot or symbol is a value, not a
 * throw, so the page and the poll can both say which of the two is missing.
 */
export async function getSymbolState(params: {
  db: JournalDb;
  botId: string;
  symbol: string;
  now: Date;
  ordersLimit: number;
  heartbeatStaleMs: number;
  reconciliationStaleMs: number;
  doubtfulGraceMs: number;
}): Promise<SymbolState | Extract<SymbolLookup, { found: false }>> {
  const { db, botId, symbol, now } = params;
  const lookup = findBotSymbol(params);
  if (!lookup.found) return lookup;
  const bot = (await listBots(params)).find((b) => b.botId === botId);
  if (!bot) return { found: false, reason: "no_bot", botId, symbol, symbols: [] };
  const latest = latestComparedCycle(params);
  const { orders, more } = listSymbolOrders({ ...params, limit: params.ordersLimit });
  return {
    found: true,
    readAt: now.toISOString(),
    botId,
    symbol,
    bot,
    line: await getSymbolLine({ db, botId, symbol, now, latest }),
    latestAt: latest?.at ?? null,
    orders,
    moreOrders: more,
  };
}
