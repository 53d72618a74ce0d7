import "server-only";
import type { JournalDb } from "../db/console";
import { queryOf, type JournalQuery } from "../db/query";
import { one, runReads, type Reads } from "../db/reads";

/**
 * How far back a missing mark is looked for: the symbol's latest rows through
 * reconciliation_positions (symbol, reconciliation_id), so a symbol that never had a mark costs a
 * bounded walk, never its whole history.
 */
export const LAST_MARK_LOOKBACK = 2_000;

const LAST_MARK_SQL = `
  SELECT p.mark_price AS markPrice, r.at AS at
  FROM (SELECT reconciliation_id, mark_price FROM reconciliation_positions
        WHERE symbol = ? ORDER BY reconciliation_id DESC LIMIT ${LAST_MARK_LOOKBACK}) p
  JOIN reconciliations r ON r.id = p.reconciliation_id
  WHERE r.bot_id = ? AND p.mark_price IS NOT NULL
  ORDER BY p.reconciliation_id DESC LIMIT 1`;

/**
 * The mark price of a line, or, when its cycle wrote none (a bot that only knows the marks of what
 * the exchange holds), the latest mark an earlier cycle of the same bot wrote for the symbol, with
 * that cycle's time so the screen can say how old the value is.
 */
export function markOfLine(params: { db: JournalDb | JournalQuery; botId: string; symbol: string; markPrice: number | null }): Promise<LineMark> {
  return runReads(queryOf(params.db), markOfLineReads(params));
}

interface LineMark {
  markPrice: number | null;
  /** Time of the earlier cycle the mark comes from; null when it is the line's own (or none). */
  markAt: string | null;
}

/** markOfLine inside a read written for both engines (lib/db/reads.ts). */
export function* markOfLineReads(params: { botId: string; symbol: string; markPrice: number | null }): Reads<LineMark> {
  if (params.markPrice !== null) return { markPrice: params.markPrice, markAt: null };
  const row = yield* one<{ markPrice: number; at: string }>(LAST_MARK_SQL, [params.symbol, params.botId]);
  return row ? { markPrice: row.markPrice, markAt: row.at } : { markPrice: null, markAt: null };
}
