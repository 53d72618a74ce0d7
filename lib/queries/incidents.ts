import "server-only";
import type Database from "better-sqlite3";
import { actorRole, withoutNames } from "../auth/actor-names";
import type { JournalDb } from "../db/console";
import { byteOrder, greatestSql, jsonTextArraySql, positionSql, unindexedSql } from "../db/dialect";
import type { Dialect, JournalQuery } from "../db/query";
import { all, one, runReads, runReadsSync, type Reads } from "../db/reads";
import { statement } from "../db/statements";
import { rowMayName, toIncidentEvent, type IncidentEvent, type IncidentRow, type IncidentSource } from "../incidents/events";
import { cycleSilences, type CycleSilence } from "../incidents/silences";
import {
  countRoutine,
  foldCounted,
  foldTimeline,
  isRoutine,
  tallyEvents,
  timelineMinute,
  unchangedDrifts,
  type RoutineCount,
  type TimelineMinute,
  type TimelineTallies,
} from "../incidents/fold";
import { DEFAULT_WINDOW_MS, MINUTE_MS, floorToMinute, type IncidentFilters, type IncidentKind, type IncidentWindow } from "../url-state/incidents";
import { driftsByReconciliationReads } from "./drifts";
import { getPrunedHistory, prunedHistoryReads, type PrunedHistory } from "./pruned-history";

/**
 * The page reads at most this many events (three busy hours at a thousand orders an hour for each
 * of two bots); a wider window says so and offers a narrower one. Busy minutes fold their routine
 * events, so the page stays small however many it reads.
 */
export const TIMELINE_ROW_CAP = 20_000;
/** Exports are for reading elsewhere, so they go further, but never without bound. */
export const EXPORT_ROW_CAP = 50_000;

export interface IncidentTimeline {
  window: IncidentWindow;
  filters: IncidentFilters;
  events: IncidentEvent[];
  /** More events than `limit` fell in the window: `events` holds the first `limit` of them. */
  capped: boolean;
  limit: number;
  /** Set when the window reaches into pruned history: its reconciliations are gone there, not missing. */
  pruned: PrunedHistory | null;
}

export interface ResolvedWindow extends IncidentWindow {
  /** How a window the URL did not give was chosen; null when the URL gave it. */
  defaulted: "last_hour" | "latest_activity" | "empty_journal" | null;
}

interface Filter {
  bot: string | null;
  kinds: ReadonlySet<IncidentKind>;
  dialect: Dialect;
}

/** One source's SELECT over [from, to), its parameters, and the order of its `at` index, before ORDER BY and LIMIT are added. */
interface Arm {
  sql: string;
  params: unknown[];
  order: string;
  /**
   * An arm that selects its own columns only, widened here to the shared row (RawRow): each value
   * a driver hands over costs more than a slot of a JS array, and an hour's order events would
   * carry a dozen constant NULLs each (docs/performance.md).
   */
  widen?: (row: unknown[]) => RawRow;
}

/** An arm's first `limit` rows as shared rows. */
function* armRows(arm: Arm, limit: number): Reads<RawRow[]> {
  const rows = yield* all<unknown[]>(...limited(arm, limit), { raw: true });
  return arm.widen ? rows.map(arm.widen) : (rows as RawRow[]);
}

/** An arm cut to its first `limit` rows in its own index's order: the text and the parameters to run it with. */
const limited = (arm: Arm, limit: number): [string, unknown[]] => [`${arm.sql} ORDER BY ${arm.order} LIMIT ?`, [...arm.params, limit]];

/** The window's bounds, and the bot when the filter names one, in the order every arm's WHERE takes them. */
const boundsOf = (f: Filter, w: IncidentWindow) => (f.bot === null ? [w.from, w.to] : [w.from, w.to, f.bot]);

/**
 * The bot an audit entry is about: the log names a target, not a bot: a bot id, a `bot/symbol`, or
 * an order id whose bot the orders table knows.
 */
const auditBotSql = (dialect: Dialect) => `CASE WHEN EXISTS (SELECT 1 FROM bots WHERE bot_id = a.target) THEN a.target
       ELSE coalesce((SELECT bot_id FROM orders WHERE client_order_id = a.target),
                     CASE WHEN ${positionSql(dialect, "a.target", "'/'")} > 0 THEN substr(a.target, 1, ${positionSql(dialect, "a.target", "'/'")} - 1) END) END`;

/**
 * Every source of the timeline, each one SELECT with the same columns (RawRow's, in that order; the
 * order events, the hour's bulk, select their own and are widened to them), over its own `at` index; its parameters from, to and (with a bot filter) the bot. "operator" is
 * the audit log plus a filter on actors, so it also widens the sources that carry one. A new source
 * is one more entry here. Written once for both engines: where they differ (a hint that keeps
 * SQLite's planner off an index, a string search) the fragment comes from lib/db/dialect.ts.
 */
const SOURCES: { source: IncidentSource; select: (f: Filter, w: IncidentWindow) => Arm | null }[] = [
  {
    source: "reconciliation",
    select: (f, w) =>
      f.kinds.has("reconciliation")
        ? {
            sql: `SELECT 'reconciliation' AS source, 0 AS rank, r.id AS rowId, r.at AS at, r.bot_id AS botId, r.outcome AS kind,
             'bot' AS actor, NULL AS clientOrderId, NULL AS symbol, NULL AS side, NULL AS qty, NULL AS strategy, NULL AS detail,
             r.error AS reason, r.id AS reconciliationId, r.orders_in_flight AS ordersInFlight, NULL AS target, NULL AS outcome
           FROM reconciliations r
           WHERE r.at >= ? AND r.at < ?${f.bot === null ? "" : " AND r.bot_id = ?"}`,
            params: boundsOf(f, w),
            order: "r.at, r.id",
          }
        : null,
  },
  {
    // Without a bot, the order's columns are looked up afterwards, once per order (orderFacts): an
    // order has three or more events in the hour, and joining each event to its order made two
    // B-tree descents per event on a million-row table (docs/performance.md). With a bot, the join
    // filters; `+o.bot_id` keeps SQLite's planner on the events' (at) index instead of walking every
    // order the bot ever placed on orders' (bot_id, …) index: 3 s instead of 5 ms for one bot's 20
    // minutes of the 20-day reference journal.
    source: "order",
    select: (f, w) => {
      if (!f.kinds.has("order") && !f.kinds.has("operator")) return null;
      const operatorOnly = f.kinds.has("order") ? "" : " AND substr(e.actor, 1, 9) = 'operator:'";
      if (f.bot === null)
        return {
          sql: `SELECT e.id AS rowId, e.at AS at, e.kind AS kind, e.actor AS actor, e.client_order_id AS clientOrderId, e.detail AS detail
                FROM order_events e
                WHERE e.at >= ? AND e.at < ?${operatorOnly}`,
          params: boundsOf(f, w),
          order: "e.at, e.id",
          widen: (r) => ["order", 1, r[0], r[1], null, r[2], r[3], r[4], null, null, null, null, r[5], null, null, null, null, null] as RawRow,
        };
      return {
        sql: `SELECT e.id AS rowId, e.at AS at, o.bot_id AS botId, e.kind AS kind, e.actor AS actor, e.client_order_id AS clientOrderId,
                o.symbol AS symbol, o.side AS side, o.qty AS qty, o.strategy AS strategy, e.detail AS detail
              FROM order_events e LEFT JOIN orders o ON o.client_order_id = e.client_order_id
              WHERE e.at >= ? AND e.at < ? AND ${unindexedSql(f.dialect, "o.bot_id")} = ?${operatorOnly}`,
        params: boundsOf(f, w),
        order: "e.at, e.id",
        widen: (r) => ["order", 1, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], null, null, null, null, null] as RawRow,
      };
    },
  },
  {
    source: "breaker",
    select: (f, w) => {
      if (!f.kinds.has("breaker") && !f.kinds.has("operator")) return null;
      return {
        sql: `SELECT 'breaker' AS source, 2 AS rank, b.id AS rowId, b.at AS at, b.bot_id AS botId, b.kind AS kind, b.actor AS actor,
                NULL AS clientOrderId, NULL AS symbol, NULL AS side, NULL AS qty, NULL AS strategy, NULL AS detail,
                b.reason AS reason, b.reconciliation_id AS reconciliationId, NULL AS ordersInFlight, NULL AS target, NULL AS outcome
              FROM breaker_events b
              WHERE b.at >= ? AND b.at < ?${f.bot === null ? "" : " AND b.bot_id = ?"}${f.kinds.has("breaker") ? "" : " AND substr(b.actor, 1, 9) = 'operator:'"}`,
        params: boundsOf(f, w),
        order: "b.at, b.id",
      };
    },
  },
  {
    // Every operator action, applied or refused.
    source: "audit",
    select: (f, w) => {
      if (!f.kinds.has("operator")) return null;
      const bot = auditBotSql(f.dialect);
      return {
        sql: `SELECT 'audit' AS source, 3 AS rank, a.id AS rowId, a.at AS at, ${bot} AS botId,
                a.action AS kind, a.actor AS actor, NULL AS clientOrderId, NULL AS symbol, NULL AS side, NULL AS qty, NULL AS strategy,
                a.detail AS detail, a.code AS reason, NULL AS reconciliationId, NULL AS ordersInFlight, a.target AS target, a.outcome AS outcome
              FROM audit_log a
              WHERE a.at >= ? AND a.at < ?${f.bot === null ? "" : ` AND (${bot}) = ?`}`,
        params: boundsOf(f, w),
        order: "a.at, a.id",
      };
    },
  },
];

/** A row of a source's SELECT as `.raw()` gives it: the sources' columns by position (no object per row from the driver). */
type RawRow = [
  source: IncidentSource,
  rank: number,
  rowId: number,
  at: string,
  botId: string | null,
  kind: string,
  actor: string,
  clientOrderId: string | null,
  symbol: string | null,
  side: string | null,
  qty: number | null,
  strategy: string | null,
  detail: string | null,
  reason: string | null,
  reconciliationId: number | null,
  ordersInFlight: number | null,
  target: string | null,
  outcome: string | null,
];

/**
 * Everything that happened in [from, to), in time order (at a tie: the reconciliation, then the
 * orders it moved, then the trip it caused, then the audit entry of an operator's action). One
 * SELECT per source over its `at` index, each cut at `limit + 1` rows and merged, so a wide window
 * costs the cap, not the history.
 */
export function getIncidentTimeline(params: TimelineParams): IncidentTimeline {
  return eager(readIncidentTimeline(params));
}

const eager = (t: LazyIncidentTimeline): IncidentTimeline => ({
  window: t.window,
  filters: t.filters,
  capped: t.capped,
  limit: t.limit,
  pruned: t.pruned,
  events: [...t.events()],
});

/** What a timeline read takes besides the connection. */
export type TimelineOptions = {
  window: IncidentWindow;
  filters: IncidentFilters;
  limit?: number;
  /** false: a reader who is not signed in; every operator's name becomes its role (lib/auth/actor-names.ts). */
  names?: boolean;
};

type TimelineParams = TimelineOptions & { db: JournalDb | Database.Database };

/** getIncidentTimeline with its events worded one at a time, as they are asked for. */
export interface LazyIncidentTimeline extends Omit<IncidentTimeline, "events"> {
  count: number;
  /** The events, in order; each call words them afresh. */
  events: () => Generator<IncidentEvent>;
}

/**
 * getIncidentTimeline for a reader that takes the events one at a time (the export, which writes
 * each as JSON or CSV and lets it go): the journal is read whole here, in one statement and two
 * lookups, and only the wording waits. A busy hour's 6,800 events held at once outlived the young
 * generation and were copied by the collector, which cost more than reading and wording them
 * (docs/performance.md). The statement is compiled once per connection and filter shape, and its
 * rows are read as arrays rather than one driver-built object per row.
 */
export function readIncidentTimeline(params: TimelineParams): LazyIncidentTimeline {
  return runReadsSync(params.db, incidentTimelineReads({ ...params, dialect: "sqlite" }));
}

/** readIncidentTimeline on any engine's handle (a PostgreSQL source's pages and export). */
export function queryIncidentTimeline(q: JournalQuery, options: TimelineOptions): Promise<LazyIncidentTimeline> {
  return runReads(q, incidentTimelineReads({ ...options, dialect: q.dialect }));
}

/** getIncidentTimeline on any engine's handle. */
export async function queryIncidentTimelineEvents(q: JournalQuery, options: TimelineOptions): Promise<IncidentTimeline> {
  return eager(await queryIncidentTimeline(q, options));
}

/** The timeline read, written once for both engines (lib/db/reads.ts). */
export function* incidentTimelineReads(params: TimelineOptions & { dialect: Dialect }): Reads<LazyIncidentTimeline> {
  const { window, filters, dialect } = params;
  const limit = params.limit ?? TIMELINE_ROW_CAP;
  const f: Filter = { bot: filters.bot, kinds: new Set(filters.kinds), dialect };
  const arms = SOURCES.map((s) => s.select(f, window)).filter((s): s is Arm => s !== null);
  // Cycles, or settled orders, the window no longer has (an order horizon can be the newer one).
  const pruned =
    filters.kinds.includes("reconciliation") || filters.kinds.includes("order")
      ? yield* prunedHistoryReads({ botId: filters.bot, from: Date.parse(window.from), to: Date.parse(window.to) })
      : null;
  if (arms.length === 0) return { window, filters, capped: false, limit, pruned, count: 0, events: function* () {} };

  // One statement per source, each in its own `at` index's order (no sort of the hour's rows in a
  // temporary B-tree, which copied every row with its detail text), merged here by (at, rank, rowId).
  const lists: RawRow[][] = [];
  for (const arm of arms) lists.push(yield* armRows(arm, limit + 1));
  const rows = mergeByTime(lists, limit + 1);
  const capped = rows.length > limit;
  if (capped) rows.length = limit;
  const events = yield* wordRows(dialect, rows, f.bot === null, params.names === false);
  return { window, filters, capped, limit, pruned, count: rows.length, events };
}

/** The page's timeline: the window minute by minute, busy minutes folded (lib/incidents/fold.ts). */
export interface FoldedIncidentTimeline extends Omit<IncidentTimeline, "events"> {
  /** Every event of the window (of the first `limit`, when capped), shown or folded. */
  count: number;
  minutes: TimelineMinute[];
  tallies: TimelineTallies;
  /** When capped: the time of the last event counted, where the next window can start. */
  lastAt: string | null;
  /** The routine order events were counted in SQL, not read (false: the whole window was read and folded). */
  countedInSql: boolean;
  /** Where a bot wrote no reconciliation in the window (lib/incidents/silences.ts); none when reconciliations are not shown. */
  silences: CycleSilence[];
}

/** The window's silences, as FoldedIncidentTimeline says them. */
export function windowSilences(
  events: readonly IncidentEvent[],
  t: { window: IncidentWindow; filters: IncidentFilters; capped: boolean; pruned: PrunedHistory | null },
): CycleSilence[] {
  if (!t.filters.kinds.includes("reconciliation")) return [];
  return cycleSilences(events, { end: Math.min(Date.parse(t.window.to), Date.now()), capped: t.capped, prunedSpans: t.pruned?.spans });
}

/**
 * An order event that is routine (lib/incidents/fold.ts isRoutine: an info line of the bot's) by
 * its columns alone, without wording it: no operator acted, and its kind is never more than info
 * (orderWords in lib/incidents/events.ts), or it is a send of an order whose strategy is not the
 * reduce-only close, or a status whose detail cannot name `unknown` or `rejected` (neither word,
 * nor a JSON escape that could spell one). Whatever this leaves out is read and worded, and the
 * words decide: this only has to be sure of what it counts. `strategy` is the SQL of the order's
 * strategy. The integration test checks it against the words over every event of a busy journal.
 */
const surelyRoutineOrder = (strategy: string) =>
  `(NOT (e.actor = 'operator' OR substr(e.actor, 1, 9) = 'operator:')
    AND (e.kind NOT IN ('send', 'status', 'timeout', 'error', 'lookup_found', 'lookup_absent')
         OR (e.kind = 'send' AND ${strategy} IS NOT 'reconcile')
         OR (e.kind = 'status' AND instr(e.detail, 'unknown') = 0 AND instr(e.detail, 'rejected') = 0 AND instr(e.detail, '\\') = 0)))`;

/** The order events' FROM and WHERE, and the SQL of an event's order's strategy, with or without a bot filter (as the order source reads them). */
function orderEventsFrom(bot: boolean) {
  return bot
    ? {
        from: `FROM order_events e LEFT JOIN orders o ON o.client_order_id = e.client_order_id WHERE e.at >= ? AND e.at < ? AND +o.bot_id = ?`,
        strategy: "o.strategy",
      }
    : {
        from: `FROM order_events e WHERE e.at >= ? AND e.at < ?`,
        strategy: "(SELECT strategy FROM orders WHERE client_order_id = e.client_order_id)",
      };
}

/** A time as docs/journal.md writes it (UTC, milliseconds, Z): its first 16 characters are its minute. */
const CANONICAL_AT = /^\d{4}-\d\d-\d\dT\d\d:[0-5]\d:[0-5]\d\.\d{3}Z$/;
const CANONICAL_AT_GLOB = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z";

/**
 * The page's timeline of a window: foldTimeline over getIncidentTimeline's events, without reading
 * the events a busy minute folds. A busy hour is 6,500 events of which a few dozen are shown; the
 * rest were read, looked up, worded, and counted only to be folded (most of the page's time, and
 * its garbage). Here the routine order events are counted in SQL, by minute and kind, and only the
 * others are read: the order events that are not surely routine, every reconciliation (the
 * unchanged-drift rule compares each cycle with the bot's previous one), breaker event and audit
 * entry; a minute with too few routine events to fold is then read whole. The result is the one
 * foldTimeline gives, event for event (the integration test compares them): where this cannot be
 * sure of that (a window over the cap, a time not written as docs/journal.md says, a timeline
 * without order events) it is foldTimeline over the whole read.
 */
export function getFoldedIncidentTimeline(params: TimelineParams): FoldedIncidentTimeline {
  return foldedInSql(params) ?? foldedInFull(getIncidentTimeline(params));
}

/**
 * getFoldedIncidentTimeline on any engine's handle: on SQLite the same read; on PostgreSQL the
 * whole window read and folded by foldTimeline (the SQL count is written in SQLite's dialect; its
 * result is the fold's, event for event, so the page is the same).
 */
export async function queryFoldedIncidentTimeline(q: JournalQuery, options: TimelineOptions): Promise<FoldedIncidentTimeline> {
  if (q.dialect === "sqlite") return getFoldedIncidentTimeline({ ...options, db: q.key as Database.Database });
  return foldedInFull(await queryIncidentTimelineEvents(q, options));
}

function foldedInFull(t: IncidentTimeline): FoldedIncidentTimeline {
  return {
    window: t.window,
    filters: t.filters,
    capped: t.capped,
    limit: t.limit,
    pruned: t.pruned,
    count: t.events.length,
    minutes: foldTimeline(t.events),
    tallies: tallyEvents(t.events),
    lastAt: t.capped ? (t.events.at(-1)?.at ?? null) : null,
    countedInSql: false,
    silences: windowSilences(t.events, t),
  };
}

interface CountedMinute {
  key: string;
  start: number;
  /** Order events of the minute, all of them. */
  orders: number;
  /** Its routine events by (source, kind): the order events counted in SQL, then the routine among those read. */
  counts: Map<string, RoutineCount>;
  /** The events read, in time order: every event of another source, and the order events not surely routine. */
  read: IncidentEvent[];
}

function foldedInSql(params: TimelineParams): FoldedIncidentTimeline | null {
  const { db, window, filters } = params;
  const limit = params.limit ?? TIMELINE_ROW_CAP;
  if (!filters.kinds.includes("order")) return null;
  const f: Filter = { bot: filters.bot, kinds: new Set(filters.kinds), dialect: "sqlite" };
  const bounds = boundsOf(f, window);
  const orders = orderEventsFrom(f.bot !== null);
  const routine = surelyRoutineOrder(orders.strategy);

  // The order events by minute and kind: how many, and how many surely routine. A time that is not
  // the contract's has no minute here, and sends the window to foldTimeline.
  // One pass over the window's order events, each judged once (the send's order looked up once):
  // materialised, so the judgement is not made again for the count and for the list of the others.
  const counted = statement(
    db,
    `WITH judged AS MATERIALIZED (
       SELECT CASE WHEN e.at GLOB '${CANONICAL_AT_GLOB}' THEN substr(e.at, 1, 16) END AS minute, e.kind AS kind, e.id AS id, ${routine} AS surely
       ${orders.from})
     SELECT minute, kind, count(*), sum(surely), group_concat(CASE WHEN surely THEN NULL ELSE id END) FROM judged GROUP BY minute, kind`,
  )
    .raw(true)
    .all(...bounds) as [minute: string | null, kind: string, n: number, routine: number, unsure: string | null][];
  let total = 0;
  const unsureIds: number[] = [];
  const minutes = new Map<string, CountedMinute>();
  const minuteFor = (key: string) => {
    let m = minutes.get(key);
    if (!m) minutes.set(key, (m = { key, start: Date.parse(`${key}:00.000Z`), orders: 0, counts: new Map(), read: [] }));
    return m;
  };
  for (const [key, kind, n, surely, unsure] of counted) {
    if (key === null) return null;
    total += n;
    const m = minuteFor(key);
    m.orders += n;
    if (surely > 0) countRoutine(m.counts, "order", kind, surely);
    if (unsure !== null) for (const id of unsure.split(",")) unsureIds.push(Number(id));
  }

  // Everything else, read and worded as getIncidentTimeline reads it.
  const rowsOf = (arm: Arm, max: number) => runReadsSync(db, armRows(arm, max));
  const others = SOURCES.filter((s) => s.source !== "order")
    .map((s) => s.select(f, window))
    .filter((s): s is Arm => s !== null)
    .map((arm) => rowsOf(arm, limit + 1));
  const unsureArm = orderArm(f, window);
  const unsure =
    unsureIds.length === 0
      ? []
      : rowsOf(
          { ...unsureArm, sql: `${unsureArm.sql} AND e.id IN (SELECT value FROM json_each(?))`, params: [...unsureArm.params, JSON.stringify(unsureIds)] },
          limit + 1,
        );
  for (const list of others) total += list.length;
  if (total > limit) return null;
  const rows = mergeByTime([...others, unsure], limit + 1);
  const events = [...runReadsSync(db, wordRows("sqlite", rows, f.bot === null, params.names === false))()];
  for (const e of events) {
    if (!CANONICAL_AT.test(e.at)) return null;
    minuteFor(e.at.slice(0, 16)).read.push(e);
  }
  const ordered = [...minutes.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
  for (let i = 0; i < ordered.length; i++) {
    const start = ordered[i]!.start;
    // An impossible date (the 31st of February) is read by Date.parse as another day: not in text order.
    if (Number.isNaN(start) || (i > 0 && start <= ordered[i - 1]!.start)) return null;
  }

  const unchanged = unchangedDrifts(events);
  const folds = ordered.map((m) => {
    const notable: IncidentEvent[] = [];
    const counts = new Map(m.counts);
    for (const e of m.read) {
      if (isRoutine(e) || unchanged.has(e.id)) countRoutine(counts, e.source, e.kind);
      else notable.push(e);
    }
    return foldCounted(notable, counts);
  });
  // Minutes too quiet to fold are shown whole: their order events read again, all of them, each
  // minute by its own stretch of the `at` index.
  const whole = ordered.filter((_, i) => folds[i] === null);
  const wholeRows = whole.map((m) => {
    const from = `${m.key}:00.000Z` > window.from ? `${m.key}:00.000Z` : window.from;
    const next = new Date(m.start + MINUTE_MS).toISOString();
    const to = next < window.to ? next : window.to;
    return rowsOf(orderArm(f, { from, to }), limit + 1);
  });
  const wholeOrders = [...runReadsSync(db, wordRows("sqlite", wholeRows.flat(), f.bot === null, params.names === false))()];
  let next = 0;
  const shown = new Map<CountedMinute, IncidentEvent[]>();
  for (const [i, m] of whole.entries()) {
    const mine = wholeOrders.slice(next, (next += wholeRows[i]!.length));
    shown.set(
      m,
      mergeEvents(
        m.read.filter((e) => e.source !== "order"),
        mine,
      ),
    );
  }
  const pruned = filters.kinds.includes("reconciliation")
    ? getPrunedHistory({ db, botId: filters.bot, from: Date.parse(window.from), to: Date.parse(window.to) })
    : null;
  return {
    window,
    filters,
    capped: false,
    limit,
    pruned,
    count: total,
    minutes: ordered.map((m, i) => {
      const fold = folds[i]!;
      return timelineMinute(m.start, m.orders + m.read.filter((e) => e.source !== "order").length, fold ? fold.notable : shown.get(m)!, fold, unchanged);
    }),
    tallies: tallyEvents(events),
    lastAt: null,
    countedInSql: true,
    silences: windowSilences(events, { window, filters, capped: false, pruned }),
  };
}

/** The order source's SELECT for these filters (the page reads order events only when `order` is among the kinds). */
function orderArm(f: Filter, w: IncidentWindow): Arm {
  return SOURCES.find((s) => s.source === "order")!.select(f, w)!;
}

const RANK: Record<IncidentSource, number> = { reconciliation: 0, order: 1, breaker: 2, audit: 3 };

/** Two lists of events, each in timeline order, as one: by (at, source rank, row id), as mergeByTime orders rows. */
function mergeEvents(a: IncidentEvent[], b: IncidentEvent[]): IncidentEvent[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const rowId = (e: IncidentEvent) => Number(e.id.slice(e.id.indexOf("-") + 1));
  const before = (x: IncidentEvent, y: IncidentEvent) =>
    x.at < y.at || (x.at === y.at && (RANK[x.source] < RANK[y.source] || (RANK[x.source] === RANK[y.source] && rowId(x) < rowId(y))));
  const out: IncidentEvent[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && before(a[i]!, b[j]!))) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

/**
 * The rows' words, as a generator that words them afresh on each call: each order's facts looked
 * up once (`lookUp`: rows read without a bot filter carry none), each drift cycle's drifts, and,
 * for a reader without names, every operator's name turned into its role.
 */
function* wordRows(dialect: Dialect, rows: readonly RawRow[], lookUp: boolean, hide: boolean): Reads<() => Generator<IncidentEvent>> {
  const orderIds: string[] = [];
  const driftIds: number[] = [];
  for (const r of rows) {
    if (r[0] === "order") orderIds.push(r[7]!);
    else if (r[0] === "reconciliation" && r[5] === "drift") driftIds.push(r[2]);
  }
  const facts = lookUp ? yield* orderFacts(dialect, orderIds) : null;
  const drifts = yield* driftsByReconciliationReads(dialect, driftIds);
  // Without names: the actor's role before the summary is worded from it, then any name quoted in a reason or note.
  return function* events(): Generator<IncidentEvent> {
    for (const r of rows) {
      const o = facts !== null && r[0] === "order" ? facts.get(r[7]!) : undefined;
      const row: IncidentRow = {
        source: r[0],
        rowId: r[2],
        at: r[3],
        botId: o ? o[1] : r[4],
        kind: r[5],
        actor: hide ? actorRole(r[6]) : r[6],
        clientOrderId: r[7],
        symbol: o ? o[2] : r[8],
        side: o ? o[3] : r[9],
        qty: o ? o[4] : r[10],
        strategy: o ? o[5] : r[11],
        detail: r[12],
        reason: r[13],
        reconciliationId: r[14],
        ordersInFlight: r[15],
        target: r[16],
        outcome: r[17],
      };
      const rowDrifts = r[0] === "reconciliation" ? (drifts.get(r[2]) ?? []) : [];
      const event = toIncidentEvent(row, rowDrifts);
      // An event's words are its row's texts joined by constant words, none of which can complete a
      // name: only an event whose row holds one (nearly none of a busy hour's) is searched and copied.
      yield hide && rowMayName(row, rowDrifts, r[6]) ? withoutNames(event) : event;
    }
  };
}

/**
 * Rows of each source, each sorted by (at, rowId), as one list sorted by (at, rank, rowId), at most
 * `max` long. `at` is ISO-8601 text (docs/journal.md), which JavaScript's `<` orders as SQLite's
 * BINARY collation does.
 */
function mergeByTime(lists: RawRow[][], max: number): RawRow[] {
  const nonEmpty = lists.filter((l) => l.length > 0);
  if (nonEmpty.length === 0) return [];
  if (nonEmpty.length === 1) return nonEmpty[0]!.length > max ? nonEmpty[0]!.slice(0, max) : nonEmpty[0]!;
  const out: RawRow[] = [];
  const at = nonEmpty.map(() => 0);
  while (out.length < max) {
    let best = -1;
    let bestRow: RawRow | undefined;
    for (let i = 0; i < nonEmpty.length; i++) {
      const r = nonEmpty[i]![at[i]!];
      if (r === undefined) continue;
      if (bestRow === undefined || r[3] < bestRow[3] || (r[3] === bestRow[3] && (r[1] < bestRow[1] || (r[1] === bestRow[1] && r[2] < bestRow[2])))) {
        best = i;
        bestRow = r;
      }
    }
    if (bestRow === undefined) break;
    out.push(bestRow);
    at[best] = at[best]! + 1;
  }
  return out;
}

/** An order's id, bot, symbol, side, size and strategy, by position (a `.raw()` row). */
type OrderFacts = [clientOrderId: string, botId: string, symbol: string, side: string, qty: number, strategy: string];

/** Each order's bot, symbol, side, size and strategy, one primary-key lookup per distinct order; absent orders are absent. */
function* orderFacts(dialect: Dialect, ids: readonly string[]): Reads<Map<string, OrderFacts>> {
  const out = new Map<string, OrderFacts>();
  if (ids.length === 0) return out;
  const rows = yield* all<OrderFacts>(
    `SELECT client_order_id, bot_id, symbol, side, qty, strategy FROM orders WHERE client_order_id IN (${jsonTextArraySql(dialect, "?")})`,
    [JSON.stringify([...new Set(ids)])],
    { raw: true },
  );
  for (const r of rows) out.set(r[0], r);
  return out;
}

/** Whether anything happened in [from, to), and the newest `at` in any source (one step down the end of each `at` index). */
export interface WindowActivity {
  recent: boolean;
  latest: string | null;
}

/** A journal's activity around the last hour, for choosing the default window. */
function* windowActivityReads(dialect: Dialect, hour: IncidentWindow): Reads<WindowActivity> {
  const any = yield* one<{ found: unknown }>(
    `SELECT EXISTS (SELECT 1 FROM order_events WHERE at >= ? AND at < ?)
         OR EXISTS (SELECT 1 FROM reconciliations WHERE at >= ? AND at < ?)
         OR EXISTS (SELECT 1 FROM breaker_events WHERE at >= ? AND at < ?)
         OR EXISTS (SELECT 1 FROM audit_log WHERE at >= ? AND at < ?) AS found`,
    [hour.from, hour.to, hour.from, hour.to, hour.from, hour.to, hour.from, hour.to],
  );
  // SQLite answers 1, PostgreSQL true.
  if (any?.found === 1 || any?.found === true) return { recent: true, latest: null };
  const row = yield* one<{ latest: string | null }>(
    `SELECT ${greatestSql(
      dialect,
      ["order_events", "reconciliations", "breaker_events", "audit_log"].map((t) => `coalesce((SELECT max(at) FROM ${t}), '')`),
    )} AS latest`,
  );
  return { recent: false, latest: row?.latest ? row.latest : null };
}

/** The last hour, to the end of the current minute (minute edges read better than now's milliseconds, and the link stays the same for a minute). */
function lastHourOf(now: Date): IncidentWindow {
  const end = floorToMinute(now.getTime()) + MINUTE_MS;
  return { from: new Date(end - DEFAULT_WINDOW_MS).toISOString(), to: new Date(end).toISOString() };
}

/**
 * The window the URL asked for, or the default: the last hour (to the end of the current minute),
 * or, when nothing happened in it, the hour up to the latest thing the journals hold (the morning
 * after, or a bot that stopped). `activity`: each journal's, read by windowActivityReads.
 */
export function chooseIncidentWindow(now: Date, activity: readonly WindowActivity[]): ResolvedWindow {
  const lastHour = lastHourOf(now);
  if (activity.some((a) => a.recent)) return { ...lastHour, defaulted: "last_hour" };
  const times = activity.map((a) => (a.latest === null ? NaN : Date.parse(a.latest))).filter((t) => !Number.isNaN(t));
  if (times.length === 0) return { ...lastHour, defaulted: "empty_journal" };
  const to = floorToMinute(Math.max(...times)) + MINUTE_MS;
  return { from: new Date(to - DEFAULT_WINDOW_MS).toISOString(), to: new Date(to).toISOString(), defaulted: "latest_activity" };
}

/** One journal's activity around the last hour of `now`, on any engine's handle. */
export function queryWindowActivity(q: JournalQuery, now: Date): Promise<WindowActivity> {
  return runReads(q, windowActivityReads(q.dialect, lastHourOf(now)));
}

/** The window the URL asked for, or one journal's default, on any engine's handle. */
export async function queryIncidentWindow(q: JournalQuery, now: Date, from: string | null, to: string | null): Promise<ResolvedWindow> {
  if (from !== null && to !== null) return { from, to, defaulted: null };
  return chooseIncidentWindow(now, [await queryWindowActivity(q, now)]);
}

/** queryIncidentWindow for one SQLite journal. */
export function resolveIncidentWindow(params: { db: JournalDb; now: Date; from: string | null; to: string | null }): ResolvedWindow {
  if (params.from !== null && params.to !== null) return { from: params.from, to: params.to, defaulted: null };
  return chooseIncidentWindow(params.now, [runReadsSync(params.db, windowActivityReads("sqlite", lastHourOf(params.now)))]);
}

/** Bot ids for the filter: small, from the bots table alone. */
function* incidentBotsReads(dialect: Dialect): Reads<string[]> {
  return (yield* all<{ botId: string }>(`SELECT bot_id AS botId FROM bots ORDER BY ${byteOrder(dialect, "bot_id")}`)).map((r) => r.botId);
}

/** The bots for the filter, on any engine's handle. */
export function queryIncidentBots(q: JournalQuery): Promise<string[]> {
  return runReads(q, incidentBotsReads(q.dialect));
}

/** incidentBotsReads on a SQLite journal. */
export function listIncidentBots(params: { db: JournalDb }): string[] {
  return runReadsSync(params.db, incidentBotsReads("sqlite"));
}
