import "server-only";
import { cycleSilences, type CycleSilence } from "../incidents/silences";
import type Database from "better-sqlite3";
import type { JournalDb } from "../db/console";
import { byteOrder, jsonTextArraySql, unindexedSql } from "../db/dialect";
import type { Dialect, JournalQuery } from "../db/query";
import { all, one, runReads, runReadsSync, type Reads } from "../db/reads";
import { collapseTimeline, type CollapsedTimeline } from "../incidents/collapse";
import { inJournal, type IncidentEvent } from "../incidents/events";
import {
  RESPONSE_ACTIONS,
  incidentsPerWeek,
  listItem,
  orderIdsInReason,
  storyChartSpan,
  tellIncident,
  type AuditFact,
  type ClearFact,
  type CorrectionFact,
  type IncidentListItem,
  type IncidentListRow,
  type IncidentStory,
  type IncidentWeek,
  type OrderEventFact,
  type StoryChartSpan,
  type OrderFact,
  type TripFact,
} from "../incidents/story";
import { INCIDENT_KINDS, MINUTE_MS, ceilToMinute, floorToMinute, type IncidentWindow } from "../url-state/incidents";
import { driftsByReconciliationReads } from "./drifts";
import { incidentTimelineReads } from "./incidents";
import { incidentCyclesPrunedReads, prunedHistoryReads, type PrunedHistory } from "./pruned-history";
import { symbolChartReads, type SymbolChart } from "./symbol-chart";

/** The story's timeline starts this long before the trip (the cycles that led to it) and ends as long after the clear. */
export const STORY_MARGIN_MS = 2 * MINUTE_MS;
/** Orders created this long before a trip on its symbol may be behind it (a lost reply's lookups run for minutes). */
const ORDER_LOOKBACK_MS = 15 * MINUTE_MS;
/** The list shows this many incidents, newest first; the weekly chart counts the same ones. */
export const INCIDENT_LIST_CAP = 500;
/** An order's events read for its story: enough for hours of failed lookups every 2.5 s. */
const ORDER_EVENTS_CAP = 5_000;
/** The chart over an incident draws at most this many points. */
const STORY_CHART_POINTS = 600;

export const TRIP_SQL = `SELECT id, bot_id AS botId, at, reason, actor, reconciliation_id AS reconciliationId
  FROM breaker_events WHERE id = ? AND kind = 'trip'`;

/** The first clear of the bot after the trip: one seek on (bot_id, at). A bot cannot trip twice without a clear between. */
export const CLEAR_SQL = `SELECT id, at, reason, actor FROM breaker_events
  WHERE bot_id = ? AND at >= ? AND kind = 'clear' AND (at > ? OR id > ?) ORDER BY at, id LIMIT 1`;

/**
 * A clear, and the trip it ended: the bot's last trip before it (a bot cannot trip twice without a
 * clear between, as CLEAR_SQL reads the other way). For an incident id that is a clear's number.
 */
export const CLEAR_OF_SQL = `SELECT c.id AS "clearId", c.bot_id AS "botId", c.at AS "clearedAt",
    (SELECT t.id FROM breaker_events t WHERE t.bot_id = c.bot_id AND t.at <= c.at AND t.kind = 'trip' AND (t.at < c.at OR t.id < c.id)
     ORDER BY t.at DESC, t.id DESC LIMIT 1) AS "tripId"
  FROM breaker_events c WHERE c.id = ? AND c.kind = 'clear'`;

/** The bot's clear before this trip, and its trip after this clear: the neighbours a story's margins must not reach into. */
export const PREVIOUS_CLEAR_SQL = `SELECT at FROM breaker_events
  WHERE bot_id = ? AND at <= ? AND kind = 'clear' AND (at < ? OR id < ?) ORDER BY at DESC, id DESC LIMIT 1`;
export const NEXT_TRIP_SQL = `SELECT at FROM breaker_events
  WHERE bot_id = ? AND at >= ? AND kind = 'trip' AND (at > ? OR id > ?) ORDER BY at, id LIMIT 1`;

const ORDER_COLUMNS = `client_order_id AS clientOrderId, symbol, side, qty, state`;

/**
 * Audit entries aimed at a bot: its id, `bot/symbol`, or one of its orders (looked up by primary
 * key). `bot` is where the bot id comes from: a parameter (`?`, three more follow: the prefix's
 * length, the prefix, the id again; aimedAt) or a column of the list's trip.
 */
const aimedAtBotSql = (bot: { id: string; prefixLength: string; prefix: string }) =>
  `(a.target = ${bot.id} OR substr(a.target, 1, ${bot.prefixLength}) = ${bot.prefix} OR EXISTS (SELECT 1 FROM orders o WHERE o.client_order_id = a.target AND o.bot_id = ${bot.id}))`;
const AIMED_AT_BOT = aimedAtBotSql({ id: "?", prefixLength: "?", prefix: "?" });
const aimedAt = (botId: string) => [botId, botId.length + 1, `${botId}/`, botId];

export const AUDIT_SQL = `SELECT a.id, a.at, a.actor, a.action, a.target, a.outcome, a.detail FROM audit_log a
  WHERE a.at >= ? AND a.at <= ? AND ${AIMED_AT_BOT} ORDER BY a.at, a.id LIMIT 1000`;

// `+a.action`: the incident's time range on (at) is narrow; every response ever made, on (action, id), is not.
const RESPONSES_SQL = RESPONSE_ACTIONS.map((a) => `'${a}'`).join(", ");
const firstResponseSql = (dialect: Dialect, from: string, to: string, aimed: string) => `SELECT min(a.at) FROM audit_log a
  WHERE a.at >= ${from} AND a.at <= ${to} AND a.outcome = 'applied' AND ${unindexedSql(dialect, "a.action")} IN (${RESPONSES_SQL}) AND ${aimed}`;
export const FIRST_RESPONSE_SQL = firstResponseSql("sqlite", "?", "?", AIMED_AT_BOT);

/**
 * Trips newest first, each with the clear that ended it (one seek on (bot_id, at)) and the first
 * operator response within it (a range of audit_log's (at) index), in one statement: one round
 * trip for the list on PostgreSQL, not one per incident. One bot's over (bot_id, at), every bot's
 * over (at). Parameters: now (the end of an incident still open), the bot (one bot's), the limit.
 */
export const listSql = (oneBot: boolean, dialect: Dialect = "sqlite") => `
  SELECT t.id, t.bot_id AS botId, t.reason, t.actor AS haltedBy, t.at AS startedAt, c.at AS clearedAt, c.actor AS clearedBy,
    (${firstResponseSql(
      dialect,
      "t.at",
      "coalesce(c.at, ?)",
      aimedAtBotSql({ id: "t.bot_id", prefixLength: "length(t.bot_id) + 1", prefix: "(t.bot_id || '/')" }),
    )}) AS firstAuditAt
  FROM breaker_events t
  LEFT JOIN breaker_events c ON c.id = (
    SELECT n.id FROM breaker_events n
    WHERE n.bot_id = t.bot_id AND n.at >= t.at AND n.kind = 'clear' AND (n.at > t.at OR n.id > t.id) ORDER BY n.at, n.id LIMIT 1)
  WHERE t.kind = 'trip'${oneBot ? " AND t.bot_id = ?" : ""}
  ORDER BY t.at DESC, t.id DESC LIMIT ?`;

function* ordersBehind(dialect: Dialect, trip: TripFact, symbol: string | null): Reads<OrderFact[]> {
  const found = new Map<string, Omit<OrderFact, "events">>();
  const named = orderIdsInReason(trip.reason);
  if (named.length > 0) {
    const rows = yield* all<Omit<OrderFact, "events">>(
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE bot_id = ? AND client_order_id IN (${jsonTextArraySql(dialect, "?")}) ORDER BY ${byteOrder(dialect, "client_order_id")}`,
      [trip.botId, JSON.stringify(named)],
    );
    for (const r of rows) found.set(r.clientOrderId, r);
  }
  const since = new Date(Date.parse(trip.at) - ORDER_LOOKBACK_MS).toISOString();
  const near =
    symbol === null
      ? // A halt that names no symbol (by hand): the bot's orders that are still not settled, from the small partial index.
        yield* all<Omit<OrderFact, "events">>(
          `SELECT ${ORDER_COLUMNS} FROM orders WHERE bot_id = ? AND state NOT IN ('filled', 'canceled', 'rejected', 'absent')
           ORDER BY created_at, ${byteOrder(dialect, "client_order_id")} LIMIT 50`,
          [trip.botId],
        )
      : yield* all<Omit<OrderFact, "events">>(
          `SELECT ${ORDER_COLUMNS} FROM orders WHERE bot_id = ? AND symbol = ? AND created_at >= ? AND created_at <= ?
           ORDER BY created_at, ${byteOrder(dialect, "client_order_id")} LIMIT 200`,
          [trip.botId, symbol, since, trip.at],
        );
  for (const r of near) found.set(r.clientOrderId, r);
  if (found.size === 0) return [];
  const eventsOf = (o: Omit<OrderFact, "events">) =>
    all<OrderEventFact>(`SELECT id, at, kind, actor, detail FROM order_events WHERE client_order_id = ? ORDER BY id LIMIT ${ORDER_EVENTS_CAP}`, [
      o.clientOrderId,
    ]);
  if (dialect === "sqlite") {
    // One seek an order on (client_order_id, id), each cut at the cap: in process, no round trips to save.
    const out: OrderFact[] = [];
    for (const o of found.values()) out.push({ ...o, events: yield* eventsOf(o) });
    return out;
  }
  // PostgreSQL: every order's events in one statement (one round trip, not one per order), each
  // order's first ORDER_EVENTS_CAP by id. On SQLite the window costs more than the seeks it saves.
  const events = yield* all<OrderEventFact & { clientOrderId: string }>(
    `SELECT e.client_order_id AS clientOrderId, e.id, e.at, e.kind, e.actor, e.detail FROM (
       SELECT client_order_id, id, at, kind, actor, detail, row_number() OVER (PARTITION BY client_order_id ORDER BY id) AS n
       FROM order_events WHERE client_order_id IN (${jsonTextArraySql(dialect, "?")})) e
     WHERE e.n <= ${ORDER_EVENTS_CAP} ORDER BY e.client_order_id, e.id`,
    [JSON.stringify([...found.keys()])],
  );
  const byOrder = new Map<string, OrderEventFact[]>([...found.keys()].map((id) => [id, []]));
  for (const { clientOrderId, ...e } of events) byOrder.get(clientOrderId)?.push(e);
  return [...found.values()].map((o) => ({ ...o, events: byOrder.get(o.clientOrderId) ?? [] }));
}

export interface IncidentStoryView {
  story: IncidentStory;
  /** The span the timeline covers, and the chart when it is short. */
  window: IncidentWindow;
  timeline: CollapsedTimeline & { events: number; capped: boolean };
  chart: SymbolChart | null;
  /** The span the chart covers: the window, or the hour around the trip of a long incident. */
  chartSpan: StoryChartSpan;
  readAt: string;
  pruned: StoryPruned;
  /** Where the bot wrote no reconciliation in the story's span (lib/incidents/silences.ts): a stop is no quiet stretch. */
  silences: CycleSilence[];
  /** With several journals: the one that holds the incident. */
  journal?: string;
}

/** What a prune took from an incident's story (journal_prunes), so the page never reads a gap as a quiet market or a missing order as none. */
export interface StoryPruned {
  /** The story's window reaches into pruned per-cycle history (the cycles before and during the incident). */
  history: PrunedHistory | null;
  /** When the reconciliation cycles of the window went; null: every cycle of it is kept. */
  cyclesPrunedOn: string | null;
  /** No order found behind the trip, and settled orders of its time went (the order horizon passed the lookback): it may have been one. */
  order: { before: string; on: string; named: string | null } | null;
}

/**
 * One incident, told: its facts read by primary key and the (bot_id, at), (at) and order indexes,
 * its timeline from the window view's query (bot only), its symbol's chart. Null when no trip has
 * this id.
 */
export function getIncidentStory(params: StoryParams & { db: JournalDb | Database.Database }): IncidentStoryView | null {
  return runReadsSync(params.db, incidentStoryReads({ ...params, dialect: "sqlite" }));
}

/** getIncidentStory on any engine's handle. */
export function queryIncidentStory(q: JournalQuery, params: StoryParams): Promise<IncidentStoryView | null> {
  return runReads(q, incidentStoryReads({ ...params, dialect: q.dialect }));
}

type StoryParams = {
  id: number;
  now: Date;
  names?: boolean;
  /** With several journals: the one read, named on the view and on each event of its timeline. */
  journal?: string;
};

function* incidentStoryReads(params: StoryParams & { dialect: Dialect }): Reads<IncidentStoryView | null> {
  const { id, now, dialect } = params;
  const trip = yield* one<TripFact>(TRIP_SQL, [id]);
  if (!trip) return null;
  const clear = (yield* one<ClearFact>(CLEAR_SQL, [trip.botId, trip.at, trip.at, trip.id])) ?? null;
  const end = clear?.at ?? now.toISOString();
  const drifts =
    trip.reconciliationId === null ? [] : ((yield* driftsByReconciliationReads(dialect, [trip.reconciliationId])).get(trip.reconciliationId) ?? []);
  const symbolGuess = drifts.find((d) => trip.reason.includes(d.symbol))?.symbol ?? drifts[0]?.symbol ?? null;
  const audit = yield* all<AuditFact>(AUDIT_SQL, [trip.at, end, ...aimedAt(trip.botId)]);
  const corrections = yield* all<CorrectionFact>(
    `SELECT id, corrected_at AS at, corrected_by AS actor, symbol, kind, ours, theirs, delta, note FROM book_corrections
     WHERE bot_id = ? AND corrected_at >= ? AND corrected_at <= ? ORDER BY id`,
    [trip.botId, trip.at, end],
  );
  const story = tellIncident({ trip, clear, drifts, orders: yield* ordersBehind(dialect, trip, symbolGuess), audit, corrections });

  const window: IncidentWindow = {
    from: new Date(floorToMinute(Date.parse(trip.at) - STORY_MARGIN_MS)).toISOString(),
    to: new Date(ceilToMinute(Math.max(Date.parse(end), Date.parse(trip.at)) + STORY_MARGIN_MS)).toISOString(),
  };
  const lazy = yield* incidentTimelineReads({ dialect, window, filters: { bot: trip.botId, kinds: [...INCIDENT_KINDS] }, names: params.names });
  const read = { ...lazy, events: [...lazy.events()] };
  // The margins show what led to the trip and what followed the clear, never the bot's previous or
  // next incident: a clear and a trip two minutes apart would otherwise be told in both stories.
  const previousClear = (yield* one<{ at: string }>(PREVIOUS_CLEAR_SQL, [trip.botId, trip.at, trip.at, trip.id]))?.at ?? null;
  const nextTrip = clear ? ((yield* one<{ at: string }>(NEXT_TRIP_SQL, [trip.botId, clear.at, clear.at, clear.id]))?.at ?? null) : null;
  // Before the trip, only what led to it: the cycles, and the orders of the incident's symbol (an
  // unrelated order's timeout read as the cause). After the clear, nothing: a cleared incident's
  // story and its post-mortem stay the same however late they are read. The chart keeps both margins.
  const related = (e: IncidentEvent) => e.source === "reconciliation" || e.source === "breaker" || (story.symbol !== null && e.symbol === story.symbol);
  // An operator's action on an order is written twice, as the order's event and as the audit entry
  // of the same moment: the timeline tells it once, on the order event's line (what it was settled
  // as, at what price), its audit entry under it (collapseTimeline, by consoleActionAudits), as the
  // window minute by minute does.
  const events = read.events
    .filter(
      (e) =>
        (previousClear === null || e.at > previousClear) &&
        (nextTrip === null || e.at < nextTrip) &&
        (e.at >= trip.at || related(e)) &&
        (clear === null || e.at <= clear.at),
    )
    .map((e) => (params.journal ? inJournal(e, params.journal) : e));
  const chartSpan = storyChartSpan({ window, tripAt: trip.at, endAt: end, now });
  const chart =
    story.symbol === null
      ? null
      : yield* symbolChartReads({
          botId: trip.botId,
          symbol: story.symbol,
          range: { kind: "custom", from: chartSpan.from, to: chartSpan.to },
          now,
          maxPoints: STORY_CHART_POINTS,
        });
  // The order behind a trip was created within the lookback before it: if the order horizon passed
  // that, a settled one may have gone, and "none found" would be a false fact.
  const orders =
    story.order === null
      ? ((yield* prunedHistoryReads({ botId: trip.botId, from: Date.parse(trip.at) - ORDER_LOOKBACK_MS, to: Date.parse(end) }))?.orders ?? null)
      : null;
  // The order the trip names went with them (a journal pruned before named orders were kept).
  const order = orders && { ...orders, named: orderIdsInReason(trip.reason)[0] ?? null };
  return {
    story,
    window,
    timeline: { ...collapseTimeline(events), events: events.length, capped: read.capped },
    chart,
    chartSpan,
    readAt: now.toISOString(),
    pruned: { history: read.pruned, cyclesPrunedOn: read.pruned && read.pruned.spans.length > 0 ? read.pruned.prunedOn : null, order },
    // To the clear, or to now while it is open: what the timeline tells.
    silences: cycleSilences(events, {
      end: Math.min(clear ? Date.parse(clear.at) : now.getTime(), Date.parse(window.to)),
      capped: read.capped,
      prunedSpans: read.pruned?.spans,
    }),
    ...(params.journal ? { journal: params.journal } : {}),
  };
}

export interface IncidentList {
  items: IncidentListItem[];
  weeks: IncidentWeek[];
  /** More incidents than INCIDENT_LIST_CAP: the oldest are left out of the list and the chart. */
  capped: boolean;
}

/**
 * Every trip→clear, newest first, from breaker_events' (at) or (bot_id, at) index; each clear is one
 * seek on (bot_id, at) and each first response a range of audit_log's (at) index over the incident.
 */
export function listIncidents(params: ListParams & { db: JournalDb | Database.Database }): IncidentList {
  return runReadsSync(params.db, incidentListReads({ ...params, dialect: "sqlite" }));
}

/** listIncidents on any engine's handle. */
export function queryIncidentList(q: JournalQuery, params: ListParams): Promise<IncidentList> {
  return runReads(q, incidentListReads({ ...params, dialect: q.dialect }));
}

type ListParams = { bot: string | null; now: Date; limit?: number };

function* incidentListReads(params: ListParams & { dialect: Dialect }): Reads<IncidentList> {
  const { bot, now, dialect } = params;
  const limit = params.limit ?? INCIDENT_LIST_CAP;
  const open = now.toISOString();
  const rows = yield* all<IncidentListRow>(listSql(bot !== null, dialect), bot === null ? [open, limit + 1] : [open, bot, limit + 1]);
  const capped = rows.length > limit;
  const prunedOn = yield* incidentCyclesPrunedReads();
  const items: IncidentListItem[] = rows.slice(0, limit).map((r) => ({
    ...listItem(r),
    cyclesPrunedOn: prunedOn({ botId: r.botId, from: Date.parse(r.startedAt), to: Date.parse(r.clearedAt ?? open) }),
  }));
  return { items, weeks: incidentsPerWeek(items), capped };
}
