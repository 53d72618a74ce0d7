import "server-only";
import type Database from "better-sqlite3";
import type { JournalDb } from "../db/console";
import { all, runReadsSync, type Reads } from "../db/reads";
import { incidentSpans, keptIncidentSpans, prunedSpans, type BreakerEventLite, type Span } from "../journal/retention";

/** A second horizon a window reaches past: before `before`, that kind of history went; first on `on`. */
export interface PrunedBefore {
  before: string;
  on: string;
}

/** What a window no longer has because the journal was pruned (journal_prunes, migrations 0005 and 0006). */
export interface PrunedHistory {
  /** Per-cycle rows before this time may be gone. */
  horizon: string;
  /** When the oldest part of the window lost its per-cycle rows: the first prune that reached it. */
  prunedOn: string;
  /** The parts of the window without per-cycle rows (whole five-minute buckets), epoch ms. */
  spans: Span[];
  /** Incident windows that ended before this lost their per-cycle rows too; null: every incident kept. */
  incidentHorizon: string | null;
  /** Incidents of this bot inside the window lost their per-cycle rows (they ended before the incident horizon): how many. */
  incidentPruned: (PrunedBefore & { count: number }) | null;
  /** Before this the rollups are hourly (the five-minute ones were folded); null when the window is after it. `whole`: all the window is before it. */
  hourly: (PrunedBefore & { whole: boolean }) | null;
  /** Settled orders last updated before this went with their events; null when the window is after it. */
  orders: PrunedBefore | null;
  /** A prune stopped before its end; a rerun finishes it. */
  interrupted: boolean;
}

const PRUNES_SQL = `SELECT horizon, started_at AS startedAt, finished_at AS finishedAt, incident_horizon AS incidentHorizon,
  order_horizon AS orderHorizon, rollup_horizon AS rollupHorizon FROM journal_prunes ORDER BY horizon DESC`;
const EVENTS_SQL = `SELECT at, kind FROM breaker_events WHERE bot_id = ? ORDER BY at, id`;

interface PruneRow {
  horizon: string;
  startedAt: string;
  finishedAt: string | null;
  incidentHorizon: string | null;
  orderHorizon: string | null;
  rollupHorizon: string | null;
}

/** The latest of one horizon over every prune, and when a prune first passed `from` with it. */
function reach(prunes: readonly PruneRow[], key: "incidentHorizon" | "orderHorizon" | "rollupHorizon", from: number): PrunedBefore | null {
  const passed = prunes.filter((p) => p[key] !== null && Date.parse(p[key]!) > from);
  if (passed.length === 0) return null;
  return {
    before: passed.map((p) => p[key]!).reduce((a, b) => (b > a ? b : a)),
    on: passed.map((p) => p.startedAt).reduce((a, b) => (b < a ? b : a)),
  };
}

/**
 * The parts of [from, to) whose per-cycle rows were pruned, for one bot (its incident windows
 * kept, up to the incident horizon) or for every bot (`botId` null: then every part before the
 * horizon counts, since some bot lost its cycles there), and the other horizons the window reaches
 * past. Null when nothing in the window was pruned: one read of a table with a row per prune, so a
 * window after every horizon (every live poll) costs nothing more.
 */
/** What a window no longer has, on a SQLite connection (the incident pages read it so). */
export function getPrunedHistory(params: { db: JournalDb | Database.Database; botId: string | null; from: number; to: number }): PrunedHistory | null {
  return runReadsSync(params.db, prunedHistoryReads(params));
}

/** getPrunedHistory inside a read written for both engines (lib/db/reads.ts). */
export function* prunedHistoryReads(params: { botId: string | null; from: number; to: number }): Reads<PrunedHistory | null> {
  const { botId, from, to } = params;
  const prunes = yield* all<PruneRow>(PRUNES_SQL);
  const newest = prunes[0];
  if (!newest) return null;
  const horizon = Date.parse(newest.horizon);
  const orders = reach(prunes, "orderHorizon", from);
  if (from >= horizon && orders === null) return null;
  const incident = reach(prunes, "incidentHorizon", -Infinity);
  const incidentHorizon = incident ? Date.parse(incident.before) : null;
  const events = botId === null ? [] : yield* all<BreakerEventLite>(EVENTS_SQL, [botId]);
  const spans = prunedSpans({ from, to }, horizon, keptIncidentSpans(events, incidentHorizon));
  // An incident of the window whose own cycles went: older than the incident horizon.
  const lost = incidentSpans(events).filter((s) => incidentHorizon !== null && s.to <= incidentHorizon && s.to > from && s.from < to);
  const hourly = reach(prunes, "rollupHorizon", from);
  // A kept incident older than the rollup horizon keeps its cycles, but its rollups are hourly too.
  if (spans.length === 0 && orders === null && hourly === null) return null;
  const first = spans[0]?.from ?? from;
  const reached = prunes.filter((p) => Date.parse(p.horizon) > first).map((p) => p.startedAt);
  return {
    horizon: newest.horizon,
    prunedOn: reached.reduce((a, b) => (b < a ? b : a), newest.startedAt),
    spans,
    incidentHorizon: incident?.before ?? null,
    incidentPruned: lost.length > 0 ? { ...reach(prunes, "incidentHorizon", lost[0]!.from)!, count: lost.length } : null,
    hourly: hourly && { ...hourly, whole: to <= Date.parse(hourly.before) },
    orders,
    interrupted: prunes.some((p) => p.finishedAt === null),
  };
}

/**
 * For a list of incidents: when each one's own per-cycle rows went (the first prune whose horizon
 * passed them), or null where they are all kept. One read of journal_prunes and, once a prune has
 * run, one of breaker_events; nothing per incident. Written for both engines (lib/db/reads.ts).
 */
export function* incidentCyclesPrunedReads(): Reads<(i: { botId: string; from: number; to: number }) => string | null> {
  const prunes = yield* all<PruneRow>(PRUNES_SQL);
  const newest = prunes[0];
  if (!newest) return () => null;
  const horizon = Date.parse(newest.horizon);
  const incident = reach(prunes, "incidentHorizon", -Infinity);
  const incidentHorizon = incident ? Date.parse(incident.before) : null;
  const events = yield* all<BreakerEventLite & { botId: string }>(`SELECT bot_id AS botId, at, kind FROM breaker_events ORDER BY bot_id, at, id`);
  const kept = new Map<string, Span[]>();
  const byBot = new Map<string, BreakerEventLite[]>();
  for (const e of events) byBot.set(e.botId, [...(byBot.get(e.botId) ?? []), e]);
  return ({ botId, from, to }) => {
    if (from >= horizon) return null;
    let spans = kept.get(botId);
    if (!spans) kept.set(botId, (spans = keptIncidentSpans(byBot.get(botId) ?? [], incidentHorizon)));
    const lost = prunedSpans({ from, to: Math.max(to, from + 1) }, horizon, spans);
    if (lost.length === 0) return null;
    return prunes
      .filter((p) => Date.parse(p.horizon) > lost[0]!.from)
      .map((p) => p.startedAt)
      .reduce((a, b) => (b < a ? b : a));
  };
}

const latestBefore = <T extends PrunedBefore>(items: (T | null)[]): T | null =>
  items.reduce<T | null>((best, x) => (x !== null && (best === null || x.before > best.before) ? x : best), null);

/**
 * What a window of several journals no longer has: every journal's gaps (their spans joined), the
 * newest of each horizon, the earliest prune date, any prune left unfinished. Taking one journal's
 * facts would let another's pruned cycles read as a quiet market.
 */
export function mergePrunedHistories(histories: readonly (PrunedHistory | null)[]): PrunedHistory | null {
  const all = histories.filter((h): h is PrunedHistory => h !== null);
  if (all.length <= 1) return all[0] ?? null;
  const spans: Span[] = [];
  for (const s of all.flatMap((h) => h.spans).sort((a, b) => a.from - b.from)) {
    const last = spans.at(-1);
    if (last && s.from <= last.to) last.to = Math.max(last.to, s.to);
    else spans.push({ ...s });
  }
  const max = (xs: (string | null)[]) => xs.reduce<string | null>((m, x) => (x !== null && (m === null || x > m) ? x : m), null);
  const counted = all.flatMap((h) => (h.incidentPruned ? [h.incidentPruned] : []));
  const newestCounted = latestBefore(counted);
  return {
    horizon: max(all.map((h) => h.horizon))!,
    prunedOn: all.map((h) => h.prunedOn).sort()[0]!,
    spans,
    incidentHorizon: max(all.map((h) => h.incidentHorizon)),
    incidentPruned: newestCounted && { ...newestCounted, count: counted.reduce((n, c) => n + c.count, 0) },
    hourly: latestBefore(all.map((h) => h.hourly)),
    orders: latestBefore(all.map((h) => h.orders)),
    interrupted: all.some((h) => h.interrupted),
  };
}
