import "server-only";
import type { JournalDb } from "../db/console";
import { statement } from "../db/statements";
import { incidentSpans, prunedSpans, type BreakerEventLite, type Span } from "../journal/retention";

/** What a window no longer has because the journal was pruned (journal_prunes, migration 0005). */
export interface PrunedHistory {
  /** Per-cycle rows before this time may be gone. */
  horizon: string;
  /** When the oldest part of the window lost its per-cycle rows: the first prune that reached it. */
  prunedOn: string;
  /** The parts of the window without per-cycle rows (whole five-minute buckets), epoch ms. */
  spans: Span[];
  /** A prune stopped before its end; a rerun finishes it. */
  interrupted: boolean;
}

const PRUNES_SQL = `SELECT horizon, started_at AS startedAt, finished_at AS finishedAt FROM journal_prunes ORDER BY horizon DESC`;
const EVENTS_SQL = `SELECT at, kind FROM breaker_events WHERE bot_id = ? ORDER BY at, id`;

/**
 * The parts of [from, to) whose per-cycle rows were pruned, for one bot (its incident windows
 * kept) or for every bot (`botId` null: then every part before the horizon counts, since some bot
 * lost its cycles there). Null when nothing in the window was pruned: one read of a table with a
 * row per prune, so a window after the horizon (every live poll) costs nothing more.
 */
export function getPrunedHistory(params: { db: JournalDb; botId: string | null; from: number; to: number }): PrunedHistory | null {
  const { db, botId, from, to } = params;
  const prunes = statement(db, PRUNES_SQL).all() as { horizon: string; startedAt: string; finishedAt: string | null }[];
  const newest = prunes[0];
  if (!newest) return null;
  const horizon = Date.parse(newest.horizon);
  if (from >= horizon) return null;
  const kept = botId === null ? [] : incidentSpans(statement(db, EVENTS_SQL).all(botId) as BreakerEventLite[]);
  const spans = prunedSpans({ from, to }, horizon, kept);
  if (spans.length === 0) return null;
  const first = spans[0]!.from;
  const reached = prunes.filter((p) => Date.parse(p.horizon) > first).map((p) => p.startedAt);
  return {
    horizon: newest.horizon,
    prunedOn: reached.reduce((a, b) => (b < a ? b : a), newest.startedAt),
    spans,
    interrupted: prunes.some((p) => p.finishedAt === null),
  };
}
