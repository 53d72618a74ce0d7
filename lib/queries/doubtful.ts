import "server-only";
import type { JournalDb } from "../db/console";
import { queryOf, type Dialect, type JournalQuery } from "../db/query";
import type { OrderEventRow, OrderRow } from "../db/schema";
import { checkClientOrderId, type ClientOrderIdCheck } from "../journal/client-order-id";
import { doubtfulCutoff, doubtfulOrderSql } from "../journal/order-state";
import { getDriftsDoubtfulOrdersMayExplain, type DriftItMayExplain } from "./drift-explained";

export type DoubtfulOrderEvent = Pick<OrderEventRow, "id" | "at" | "kind" | "actor" | "detail">;

export interface DoubtfulOrder extends Pick<
  OrderRow,
  | "clientOrderId"
  | "botId"
  | "strategy"
  | "symbol"
  | "side"
  | "qty"
  | "bar"
  | "state"
  | "exchangeOrderId"
  | "filledQty"
  | "attempts"
  | "lastError"
  | "createdAt"
  | "updatedAt"
  | "version"
> {
  /** Since the intent was written. */
  ageMs: number | null;
  /** Why it is doubtful, in words. */
  why: string;
  idCheck: ClientOrderIdCheck | { kind: "no_bot_row" };
  /**
   * Its events, oldest first: all of them, or, past EVENTS_PER_ORDER, its first EVENTS_HEAD (the
   * intent, the send, the timeout: how it became doubtful) and its latest, the cut between them.
   */
  events: DoubtfulOrderEvent[];
  /** How many events it has in all: more than `events` holds when the history was cut. */
  eventsTotal: number;
  /** When cut: how many of `events` come before the cut (the first ones); null when none was cut. */
  eventsCutAfter: number | null;
  /** The drift on its symbol that this order's fill (with the others named) would explain, if any. */
  mayExplain: DriftItMayExplain | null;
}

/** The doubtful rule on `orders o`: its one parameter is the cutoff. */
const doubtfulWhere = (dialect: Dialect, oneBot: boolean) =>
  `${doubtfulOrderSql({ state: "o.state", updatedAt: "o.updated_at", cutoffParam: "?", dialect })}${oneBot ? " AND o.bot_id = ?" : ""}`;
/** A bot that piles up doubt is itself the incident; the list shows this many, newest first. */
export const DOUBTFUL_LIMIT = 200;
export const EVENTS_PER_ORDER = 50;

/**
 * Orders nobody can vouch for: `unknown`, and `created`/`sent` not updated within the grace
 * period. Reads only the partial index of unsettled orders, so its cost follows the number of
 * open orders, not the history.
 */
const doubtfulSql = (dialect: Dialect, oneBot: boolean) => ({
  total: `SELECT count(*) AS n FROM orders o WHERE ${doubtfulWhere(dialect, oneBot)}`,
  rows: `
    SELECT o.client_order_id AS clientOrderId, o.bot_id AS botId, o.strategy, o.symbol, o.side, o.qty, o.bar, o.state,
           o.exchange_order_id AS exchangeOrderId, o.filled_qty AS filledQty, o.attempts, o.last_error AS lastError,
           o.created_at AS createdAt, o.updated_at AS updatedAt, o.version, b.client_id_prefix AS prefix
    FROM orders o LEFT JOIN bots b ON b.bot_id = o.bot_id
    WHERE ${doubtfulWhere(dialect, oneBot)}
    ORDER BY o.updated_at DESC
    LIMIT ${DOUBTFUL_LIMIT}`,
});
const SQL = {
  sqlite: { all: doubtfulSql("sqlite", false), one: doubtfulSql("sqlite", true) },
  postgres: { all: doubtfulSql("postgres", false), one: doubtfulSql("postgres", true) },
};
const EVENTS_SQL = `SELECT id, at, kind, actor, detail FROM order_events WHERE client_order_id = ? ORDER BY id DESC LIMIT ${EVENTS_PER_ORDER}`;
/** Asked only of an order whose latest events filled the page: the index on (client_order_id, id) counts them. */
const EVENTS_COUNT_SQL = `SELECT count(*) AS n FROM order_events WHERE client_order_id = ?`;
/** The first events of a long history, kept beside its latest: they tell how the order became doubtful. */
const EVENTS_HEAD = 10;
const EVENTS_HEAD_SQL = `SELECT id, at, kind, actor, detail FROM order_events WHERE client_order_id = ? ORDER BY id LIMIT ${EVENTS_HEAD}`;

export async function listDoubtfulOrders(params: {
  db: JournalDb | JournalQuery;
  now: Date;
  graceMs: number;
  botId?: string | null;
}): Promise<{ orders: DoubtfulOrder[]; total: number }> {
  const { now } = params;
  const q = queryOf(params.db);
  const cutoff = doubtfulCutoff({ now, graceMs: params.graceMs });
  const sql = params.botId ? SQL[q.dialect].one : SQL[q.dialect].all;
  const binds = params.botId ? [cutoff, params.botId] : [cutoff];
  const [totalRow, rows] = await Promise.all([
    q.get<{ n: number }>(sql.total, binds),
    q.all<Omit<DoubtfulOrder, "ageMs" | "why" | "idCheck" | "events" | "eventsTotal" | "eventsCutAfter" | "mayExplain"> & { prefix: string | null }>(
      sql.rows,
      binds,
    ),
  ]);
  const total = totalRow?.n ?? 0;

  const [explains, events] = await Promise.all([
    rows.length > 0 ? getDriftsDoubtfulOrdersMayExplain({ db: q, now, graceMs: params.graceMs, botId: params.botId }) : new Map<string, DriftItMayExplain>(),
    Promise.all(
      rows.map(async (o) => {
        const latest = (await q.all<DoubtfulOrderEvent>(EVENTS_SQL, [o.clientOrderId])).reverse();
        if (latest.length < EVENTS_PER_ORDER) return { latest, total: latest.length, cutAfter: null };
        const total = Number((await q.get<{ n: number | string }>(EVENTS_COUNT_SQL, [o.clientOrderId]))?.n ?? latest.length);
        if (total <= latest.length) return { latest, total, cutAfter: null };
        const head = (await q.all<DoubtfulOrderEvent>(EVENTS_HEAD_SQL, [o.clientOrderId])).filter((e) => e.id < latest[0]!.id);
        return { latest: [...head, ...latest], total, cutAfter: head.length };
      }),
    ),
  ]);
  const orders = rows.map(({ prefix, ...o }, i) => {
    const created = Date.parse(o.createdAt);
    const sinceUpdate = Math.round((now.getTime() - Date.parse(o.updatedAt)) / 1000);
    const why =
      o.state === "unknown"
        ? "the send's outcome could not be proven: lookups did not settle it"
        : `still "${o.state}" with no update for ${Number.isNaN(sinceUpdate) ? "an unknown time" : `${sinceUpdate} s`} (grace ${Math.round(params.graceMs / 1000)} s): the bot may have died between the intent and the reply`;
    return {
      ...o,
      ageMs: Number.isNaN(created) ? null : now.getTime() - created,
      why,
      idCheck: prefix === null ? ({ kind: "no_bot_row" } as const) : checkClientOrderId(o.clientOrderId, prefix, o),
      events: events[i]!.latest,
      eventsTotal: events[i]!.total,
      eventsCutAfter: events[i]!.cutAfter,
      mayExplain: explains.get(o.clientOrderId) ?? null,
    };
  });
  return { orders, total };
}
