import "server-only";
import { Downsampler, type ChartSample, type DriftEpisode, type SampleGroup } from "../charts/downsample";
import type { JournalDb } from "../db/console";
import type { BreakerEventKind } from "../journal/contract";
import { COMPARED_OUTCOMES_SQL } from "../reconcile/current-line";
import { classifyDrift } from "../reconcile/diff";
import { historyNotice, resolveWindow, type ChartWindow, type HistoryNotice, type SymbolRange } from "../url-state/symbol";
import { queryOf, type JournalQuery } from "../db/query";
import { all, each, one, runReads, runReadsSync, type Reads } from "../db/reads";
import { HOURLY_MS, ROLLUP_MS } from "../journal/retention";
import { prunedHistoryReads, type PrunedHistory } from "./pruned-history";
import { latestComparedCycleReads } from "./symbol";

export interface BreakerMarker {
  id: number;
  at: string;
  kind: BreakerEventKind;
  reason: string;
  actor: string;
  reconciliationId: number | null;
}

export interface SymbolChart {
  range: SymbolRange;
  window: ChartWindow;
  /** Ours and theirs over the window, at most `maxPoints`, times in epoch ms. */
  points: ChartSample[];
  /** Every drift in the window (neighbours merged only when there are too many to draw). */
  episodes: DriftEpisode[];
  /** Trips and clears of the bot's breaker in the window, oldest first. */
  markers: BreakerMarker[];
  /** More trips and clears happened in the window than are marked. */
  moreMarkers: boolean;
  /** Compared cycles in the window (before downsampling). */
  samples: number;
  /** Width of a bucket when the cycles were downsampled; null when every cycle is drawn. */
  bucketMs: number | null;
  latestAt: string | null;
  /** Set when the window ends now but the latest data is older than its start. */
  notice: HistoryNotice | null;
  /** Set when part of the window was pruned: drawn there from the five-minute rollups. */
  pruned: PrunedHistory | null;
  readAt: string;
}

export const MAX_CHART_POINTS = 2_000;
export const MAX_MARKERS = 200;

/**
 * Every compared cycle of the bot in the window, with the symbol's line from it. The range scan is
 * on reconciliations (bot_id, at); each cycle's line is one primary-key seek on
 * reconciliation_positions (reconciliation_id, symbol). A cycle that does not mention the symbol saw
 * it flat on both sides (docs/journal.md), so a missing line reads as 0 against 0.
 */
export const CHART_ROWS_SQL = `
  SELECT r.at AS at, coalesce(p.ours, 0) AS ours, coalesce(p.theirs, 0) AS theirs, coalesce(p.qty_step, 1) AS qtyStep
  FROM reconciliations r
  LEFT JOIN reconciliation_positions p ON p.reconciliation_id = r.id AND p.symbol = ?
  WHERE r.bot_id = ? AND r.at >= ? AND r.at <= ? AND r.outcome IN ${COMPARED_OUTCOMES_SQL}
  ORDER BY r.at, r.id`;

/**
 * The state at the window's start: the last compared cycle before it, if it is no older than one
 * window length (older books are not drawn as if they still held). One backward seek.
 */
export const CHART_CARRY_IN_SQL = `
  SELECT r.at AS at, coalesce(p.ours, 0) AS ours, coalesce(p.theirs, 0) AS theirs, coalesce(p.qty_step, 1) AS qtyStep
  FROM (SELECT id, at FROM reconciliations WHERE bot_id = ? AND at < ? AND at >= ? AND outcome IN ${COMPARED_OUTCOMES_SQL}
        ORDER BY at DESC, id DESC LIMIT 1) r
  LEFT JOIN reconciliation_positions p ON p.reconciliation_id = r.id AND p.symbol = ?`;

type RawRow = [at: string, ours: number, theirs: number, qtyStep: number];

/**
 * The five-minute buckets of the window, with the bot's compared cycles in each and, when the
 * symbol's rollup counts as many, that rollup (a bucket where the bot left the symbol out of some
 * cycle, which means flat, is read cycle by cycle instead). One range scan on each primary key.
 */
export const CHART_ROLLUPS_SQL = `
  SELECT c.bucket, c.cycles AS botCycles, p.cycles, p.qty_step AS qtyStep,
         p.first_at AS firstAt, p.first_ours AS firstOurs, p.first_theirs AS firstTheirs,
         p.min_ours_at AS minOursAt, p.min_ours AS minOurs, p.min_ours_theirs AS minOursTheirs,
         p.max_ours_at AS maxOursAt, p.max_ours AS maxOurs, p.max_ours_theirs AS maxOursTheirs,
         p.min_theirs_at AS minTheirsAt, p.min_theirs_ours AS minTheirsOurs, p.min_theirs AS minTheirs,
         p.max_theirs_at AS maxTheirsAt, p.max_theirs_ours AS maxTheirsOurs, p.max_theirs AS maxTheirs,
         p.wide_at AS wideAt, p.wide_ours AS wideOurs, p.wide_theirs AS wideTheirs,
         p.last_at AS lastAt, p.last_ours AS lastOurs, p.last_theirs AS lastTheirs,
         p.drift_cycles AS driftCycles, p.unknown_cycles AS unknownCycles, p.first_drift_at AS firstDriftAt
  FROM cycle_rollups c
  LEFT JOIN position_rollups p ON p.bot_id = c.bot_id AND p.symbol = ? AND p.bucket = c.bucket
  WHERE c.bot_id = ? AND c.bucket >= ? AND c.bucket < ?
  ORDER BY c.bucket`;

const CYCLES_IN_SQL = `SELECT coalesce(sum(cycles), 0) AS n FROM cycle_rollups WHERE bot_id = ? AND bucket >= ? AND bucket < ?`;

const MARKERS_SQL = `
  SELECT id, at, kind, reason, actor, reconciliation_id AS reconciliationId FROM breaker_events
  WHERE bot_id = ? AND at >= ? AND at <= ?
  ORDER BY at, id LIMIT ${MAX_MARKERS + 1}`;

interface RollupRow {
  bucket: string;
  botCycles: number;
  cycles: number | null;
  qtyStep: number;
  firstAt: string;
  firstOurs: number;
  firstTheirs: number;
  minOursAt: string;
  minOurs: number;
  minOursTheirs: number;
  maxOursAt: string;
  maxOurs: number;
  maxOursTheirs: number;
  minTheirsAt: string;
  minTheirsOurs: number;
  minTheirs: number;
  maxTheirsAt: string;
  maxTheirsOurs: number;
  maxTheirs: number;
  wideAt: string;
  wideOurs: number;
  wideTheirs: number;
  lastAt: string;
  lastOurs: number;
  lastTheirs: number;
  driftCycles: number;
  unknownCycles: number;
  firstDriftAt: string | null;
}

/**
 * A row of CHART_ROLLUPS_SQL read raw, in its SELECT order: built here with one fixed shape, which
 * costs less than the driver naming 28 columns per row (20 days: 5,760 rows).
 */
const rollupOf = (a: unknown[]): RollupRow => {
  const v = (i: number) => a[i] as never;
  return {
    bucket: v(0),
    botCycles: v(1),
    cycles: v(2),
    qtyStep: v(3),
    firstAt: v(4),
    firstOurs: v(5),
    firstTheirs: v(6),
    minOursAt: v(7),
    minOurs: v(8),
    minOursTheirs: v(9),
    maxOursAt: v(10),
    maxOurs: v(11),
    maxOursTheirs: v(12),
    minTheirsAt: v(13),
    minTheirsOurs: v(14),
    minTheirs: v(15),
    maxTheirsAt: v(16),
    maxTheirsOurs: v(17),
    maxTheirs: v(18),
    wideAt: v(19),
    wideOurs: v(20),
    wideTheirs: v(21),
    lastAt: v(22),
    lastOurs: v(23),
    lastTheirs: v(24),
    driftCycles: v(25),
    unknownCycles: v(26),
    firstDriftAt: v(27),
  };
};

function group(r: RollupRow): SampleGroup {
  const step = r.qtyStep > 0 ? r.qtyStep : 1;
  const at = (t: string, ours: number, theirs: number): ChartSample => ({
    t: Date.parse(t),
    ours,
    theirs,
    drift: classifyDrift({ ours, theirs, qtyStep: step }),
  });
  return {
    cycles: r.cycles ?? 0,
    samples: [
      at(r.firstAt, r.firstOurs, r.firstTheirs),
      at(r.minOursAt, r.minOurs, r.minOursTheirs),
      at(r.maxOursAt, r.maxOurs, r.maxOursTheirs),
      at(r.minTheirsAt, r.minTheirsOurs, r.minTheirs),
      at(r.maxTheirsAt, r.maxTheirsOurs, r.maxTheirs),
      at(r.wideAt, r.wideOurs, r.wideTheirs),
      at(r.lastAt, r.lastOurs, r.lastTheirs),
    ].sort((a, b) => a.t - b.t),
    driftCycles: r.driftCycles,
    worst: r.unknownCycles > 0 ? "unknown_position" : r.driftCycles > 0 ? "size_drift" : "none",
    firstDriftT: r.firstDriftAt === null ? null : Date.parse(r.firstDriftAt),
  };
}

function sample(row: RawRow, t = Date.parse(row[0])): ChartSample {
  const [, ours, theirs, qtyStep] = row;
  return { t, ours, theirs, drift: classifyDrift({ ours, theirs, qtyStep: qtyStep > 0 ? qtyStep : 1 }) };
}

/**
 * The chart of one bot's book against the exchange's for one symbol over a range. Rows are streamed
 * through the downsampler, so memory stays at `maxPoints` whatever the window. Time is one pass over
 * the window's cycles, or over its five-minute rollups when the window is long (20 days: 5,760
 * rollups instead of 115,200 cycles at 15 s).
 */
type ChartParams = { botId: string; symbol: string; range: SymbolRange; now: Date; maxPoints?: number };

/** The chart on a SQLite connection (the incident story draws its trip's chart so). */
export function getSymbolChart(params: ChartParams & { db: JournalDb }): SymbolChart {
  return runReadsSync(params.db, symbolChartReads(params));
}

/** The chart on any engine's handle (the symbol page, on a SQLite or a PostgreSQL source). */
export function readSymbolChart(params: ChartParams & { db: JournalDb | JournalQuery }): Promise<SymbolChart> {
  return runReads(queryOf(params.db), symbolChartReads(params));
}

export function* symbolChartReads(params: ChartParams): Reads<SymbolChart> {
  const { botId, symbol, range, now } = params;
  const latestAt = (yield* latestComparedCycleReads(botId))?.at ?? null;
  const window = resolveWindow(range, { now, latestAt });
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  const maxPoints = params.maxPoints ?? MAX_CHART_POINTS;
  const down = new Downsampler({ from, to, maxPoints });

  const lookback = new Date(from - (to - from)).toISOString();
  const carry = yield* one<RawRow>(CHART_CARRY_IN_SQL, [botId, window.from, lookback, symbol], { raw: true });
  // Drawn at the window's left edge: what both books held when the window opened.
  if (carry) down.push(sample(carry, from));
  const rawRows = (fromIso: string, toIso: string) =>
    each<RawRow>(CHART_ROWS_SQL, [symbol, botId, fromIso, toIso], (row) => down.push(sample(row)), { raw: true });

  // A long window reads the five-minute rollups (one row where there were twenty cycles) when its
  // buckets are at least five minutes wide and it holds more cycles than it can draw; the partial
  // five minutes at each edge, and any rollup that missed a cycle, are read cycle by cycle.
  const iso = (t: number) => new Date(t).toISOString();
  const wide =
    (to - from) / Math.floor(maxPoints / 7) >= ROLLUP_MS &&
    (yield* one<{ n: number }>(CYCLES_IN_SQL, [botId, iso(Math.ceil(from / ROLLUP_MS) * ROLLUP_MS), iso(Math.floor(to / ROLLUP_MS) * ROLLUP_MS)]))!.n >
      maxPoints;
  // At most one row per bucket of the window (5,760 over 20 days): read whole, since a bucket that missed a cycle reads its cycles in between.
  const rollups = function* (fromT: number, toT: number): Reads<RollupRow[]> {
    return (yield* all<unknown[]>(CHART_ROLLUPS_SQL, [symbol, botId, iso(fromT), iso(toT)], { raw: true })).map(rollupOf);
  };
  const prunedHistory = yield* prunedHistoryReads({ botId, from, to });
  // Before the rollup horizon the rollups are hourly (folded by the prune): an hour's row is drawn
  // only where the whole hour was pruned, and kept cycles there are read one by one.
  const hourlyBefore = prunedHistory?.hourly ? Date.parse(prunedHistory.hourly.before) : -Infinity;
  const detail = function* (a: number, b: number, bInclusive: boolean): Reads<void> {
    if (a < hourlyBefore) {
      const cut = Math.min(b, hourlyBefore);
      yield* rawRows(iso(a), cut === b && bInclusive ? iso(b) : iso(cut - 1));
      if (cut === b) return;
      a = cut;
    }
    const end = bInclusive ? iso(b) : iso(b - 1);
    const firstFull = Math.ceil(a / ROLLUP_MS) * ROLLUP_MS;
    const lastFull = Math.floor(b / ROLLUP_MS) * ROLLUP_MS;
    if (!wide || lastFull <= firstFull) return yield* rawRows(iso(a), end);
    yield* rawRows(iso(a), iso(firstFull - 1));
    for (const r of yield* rollups(firstFull, lastFull)) {
      if (r.cycles === r.botCycles) down.pushGroup(group(r));
      else yield* rawRows(r.bucket, iso(Date.parse(r.bucket) + ROLLUP_MS - 1));
    }
    if (lastFull < b || bInclusive) yield* rawRows(iso(lastFull), end);
  };
  const pruned = function* (a: number, b: number): Reads<void> {
    // A window that starts inside a bucket: that bucket's lines one by one, clamped to the window.
    // An hourly row (before the rollup horizon) that reaches past the span: its lines inside it.
    const width = (t: number) => (t < hourlyBefore ? HOURLY_MS : ROLLUP_MS);
    const start = Math.floor(a / width(a)) * width(a);
    for (const r of yield* rollups(start, b)) {
      const t = Date.parse(r.bucket);
      const partial = t < a || t + width(t) > b;
      if (r.cycles === null) down.push({ t: Math.max(a, t), ours: 0, theirs: 0, drift: "none" });
      else if (partial) {
        for (const x of group(r).samples) if (x.t < b) down.push({ ...x, t: Math.max(a, x.t) });
      } else down.pushGroup(group(r));
    }
  };
  let cursor = from;
  for (const span of prunedHistory?.spans ?? []) {
    if (span.from > cursor) yield* detail(cursor, span.from, false);
    yield* pruned(Math.max(span.from, cursor), span.to);
    cursor = span.to;
  }
  if (cursor <= to) yield* detail(cursor, to, true);
  const { points, episodes, samples, bucketMs } = down.finish();

  const markerRows = yield* all<BreakerMarker>(MARKERS_SQL, [botId, window.from, window.to]);

  return {
    range,
    window,
    points,
    episodes,
    markers: markerRows.slice(0, MAX_MARKERS),
    moreMarkers: markerRows.length > MAX_MARKERS,
    samples: samples - (carry ? 1 : 0),
    bucketMs,
    latestAt,
    notice: historyNotice(window, latestAt),
    pruned: prunedHistory,
    readAt: now.toISOString(),
  };
}
