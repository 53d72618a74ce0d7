import "server-only";
import { sql } from "drizzle-orm";
import { Downsampler, type ChartSample, type DriftEpisode } from "../charts/downsample";
import type { JournalDb } from "../db/console";
import type { BreakerEventKind } from "../journal/contract";
import { classifyDrift } from "../reconcile/diff";
import { historyNotice, resolveWindow, type ChartWindow, type HistoryNotice, type SymbolRange } from "../symbol-view";
import { driver, latestComparedCycle } from "./symbol";

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
  SELECT r.at, coalesce(p.ours, 0), coalesce(p.theirs, 0), coalesce(p.qty_step, 1)
  FROM reconciliations r
  LEFT JOIN reconciliation_positions p ON p.reconciliation_id = r.id AND p.symbol = ?
  WHERE r.bot_id = ? AND r.at >= ? AND r.at <= ? AND r.outcome IN ('clean', 'drift')
  ORDER BY r.at, r.id`;

/**
 * The state at the window's start: the last compared cycle before it, if it is no older than one
 * window length (older books are not drawn as if they still held). One backward seek.
 */
export const CHART_CARRY_IN_SQL = `
  SELECT r.at, coalesce(p.ours, 0), coalesce(p.theirs, 0), coalesce(p.qty_step, 1)
  FROM (SELECT id, at FROM reconciliations WHERE bot_id = ? AND at < ? AND at >= ? AND outcome IN ('clean', 'drift')
        ORDER BY at DESC, id DESC LIMIT 1) r
  LEFT JOIN reconciliation_positions p ON p.reconciliation_id = r.id AND p.symbol = ?`;

type RawRow = [at: string, ours: number, theirs: number, qtyStep: number];

function sample(row: RawRow, t = Date.parse(row[0])): ChartSample {
  const [, ours, theirs, qtyStep] = row;
  return { t, ours, theirs, drift: classifyDrift({ ours, theirs, qtyStep: qtyStep > 0 ? qtyStep : 1 }) };
}

/**
 * The chart of one bot's book against the exchange's for one symbol over a range. Rows are streamed
 * through the downsampler, so memory stays at `maxPoints` whatever the window; time is one pass over
 * the window's cycles.
 */
export function getSymbolChart(params: {
  db: JournalDb;
  botId: string;
  symbol: string;
  range: SymbolRange;
  now: Date;
  maxPoints?: number;
}): SymbolChart {
  const { db, botId, symbol, range, now } = params;
  const latestAt = latestComparedCycle(params)?.at ?? null;
  const window = resolveWindow(range, { now, latestAt });
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  const down = new Downsampler({ from, to, maxPoints: params.maxPoints ?? MAX_CHART_POINTS });

  const client = driver(db);
  const lookback = new Date(from - (to - from)).toISOString();
  const carry = client.prepare(CHART_CARRY_IN_SQL).raw().get(botId, window.from, lookback, symbol) as RawRow | undefined;
  // Drawn at the window's left edge: what both books held when the window opened.
  if (carry) down.push(sample(carry, from));
  for (const row of client.prepare(CHART_ROWS_SQL).raw().iterate(symbol, botId, window.from, window.to) as IterableIterator<RawRow>) {
    down.push(sample(row));
  }
  const { points, episodes, samples, bucketMs } = down.finish();

  const markerRows = db.all<BreakerMarker>(sql`
    SELECT id, at, kind, reason, actor, reconciliation_id AS reconciliationId FROM breaker_events
    WHERE bot_id = ${botId} AND at >= ${window.from} AND at <= ${window.to}
    ORDER BY at, id LIMIT ${MAX_MARKERS + 1}`);

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
    readAt: now.toISOString(),
  };
}
