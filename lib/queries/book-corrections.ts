import "server-only";
/**
 * Book corrections as the bot page shows them, and the rule for when the bot has surely counted
 * one. The bot reads its book (with every correction) before it writes its cycle, in two steps, so
 * the first cycle after the one a correction was made on may have read the book just before the
 * correction landed; the second one cannot have. Until then a correction is pending, and a second
 * correction of the same symbol would be counted twice.
 */
import type Database from "better-sqlite3";
import type { JournalDb } from "../db/console";
import type { BookCorrectionRow } from "../db/schema";
import { byteOrder } from "../db/dialect";
import { queryOf, type Dialect, type JournalQuery } from "../db/query";
import { all, one, runReads, runReadsSync, type Reads } from "../db/reads";
import { COMPARED_OUTCOMES_SQL, latestComparedCycleSql } from "../reconcile/current-line";
import { classifyDrift, driftSql } from "../reconcile/diff";

type Db = JournalDb | Database.Database;

export type CorrectionRow = Pick<
  BookCorrectionRow,
  "id" | "symbol" | "kind" | "ours" | "theirs" | "delta" | "reconciliationId" | "note" | "correctedBy" | "correctedAt"
>;

const CORRECTION_COLUMNS = `id, symbol, kind, ours, theirs, delta, reconciliation_id AS reconciliationId, note, corrected_by AS correctedBy, corrected_at AS correctedAt`;

/** Compared cycles of the bot after a given one, at most two: the index on (bot_id, at), never the history. */
const CYCLES_AFTER_SQL = `
  SELECT count(*) AS n FROM (
    SELECT 1 FROM reconciliations r
    WHERE r.bot_id = ? AND r.at >= (SELECT at FROM reconciliations WHERE id = ?) AND r.id > ? AND r.outcome IN ${COMPARED_OUTCOMES_SQL}
    LIMIT 2) AS after_it`;

/** A correction the bot may not have counted yet: fewer than two compared cycles after its own. */
function* isPending(botId: string, c: Pick<CorrectionRow, "reconciliationId">): Reads<boolean> {
  return (yield* one<{ n: number }>(CYCLES_AFTER_SQL, [botId, c.reconciliationId, c.reconciliationId]))!.n < 2;
}

function* pendingCorrectionReads(botId: string, symbol: string): Reads<CorrectionRow | null> {
  const latest = yield* one<CorrectionRow>(`SELECT ${CORRECTION_COLUMNS} FROM book_corrections WHERE bot_id = ? AND symbol = ? ORDER BY id DESC LIMIT 1`, [
    botId,
    symbol,
  ]);
  return latest && (yield* isPending(botId, latest)) ? latest : null;
}

/** The symbol's latest correction, when the bot may not have counted it yet; null otherwise (a SQLite action, in its transaction). */
export function pendingCorrection(params: { db: Db; botId: string; symbol: string }): CorrectionRow | null {
  return runReadsSync(params.db, pendingCorrectionReads(params.botId, params.symbol));
}

/** pendingCorrection on any engine's handle (a PostgreSQL action reads it in its transaction). */
export function readPendingCorrection(params: { q: JournalQuery; botId: string; symbol: string }): Promise<CorrectionRow | null> {
  return runReads(params.q, pendingCorrectionReads(params.botId, params.symbol));
}

const DRIFTING = driftSql({ ours: "p.ours", theirs: "p.theirs", qtyStep: "p.qty_step" });

/** The first compared cycle after a correction's in which its symbol was in sync (absent: flat on both sides). */
const IN_SYNC_AFTER_SQL = `
  SELECT r.at FROM reconciliations r LEFT JOIN reconciliation_positions p ON p.reconciliation_id = r.id AND p.symbol = ?
  WHERE r.bot_id = ? AND r.at >= (SELECT at FROM reconciliations WHERE id = ?) AND r.id > ? AND r.outcome IN ${COMPARED_OUTCOMES_SQL}
    AND (p.symbol IS NULL OR NOT (${DRIFTING}))
  ORDER BY r.at, r.id LIMIT 1`;

/** The lines that drift in the bot's latest compared cycle: what a correction may be made on. */
const driftingNowSql = (dialect: Dialect) => `
  SELECT p.symbol, p.ours, p.theirs, p.qty_step AS qtyStep, r.id AS reconciliationId, r.at
  FROM reconciliations r JOIN reconciliation_positions p ON p.reconciliation_id = r.id
  WHERE r.id = ${latestComparedCycleSql("?")} AND ${DRIFTING}
  ORDER BY ${byteOrder(dialect, "p.symbol")}`;

export interface DriftingLine {
  symbol: string;
  drift: "size_drift" | "unknown_position";
  ours: number;
  theirs: number;
  qtyStep: number;
  /** The cycle the sizes are from, and its time (the bot's clock). */
  reconciliationId: number;
  at: string;
  /** A correction of this symbol the bot has not surely counted yet: no form until it has. */
  pending: CorrectionRow | null;
}

export type CorrectionStatus =
  | { state: "pending" }
  /** The first cycle after the correction in which the symbol was in sync. */
  | { state: "in_sync"; since: string }
  | { state: "still_drifting" };

export interface CorrectionView extends CorrectionRow {
  after: number;
  status: CorrectionStatus;
}

export interface BookCorrectionsView {
  drifting: DriftingLine[];
  /**
   * When the bot last compared its book with the exchange's (its latest compared cycle, which
   * `drifting` comes from), and its latest cycle of any outcome: when that one is skipped or
   * failed, "every symbol agrees" is only known as of `compared`. Null: no such cycle yet.
   */
  compared: { id: number; at: string } | null;
  latest: { id: number; at: string; outcome: string } | null;
  /** The bot's corrections, newest first (at most `limit`). */
  corrections: CorrectionView[];
}

function* bookCorrectionsReads(dialect: Dialect, botId: string, limit: number): Reads<BookCorrectionsView> {
  const compared = (yield* one<{ id: number; at: string }>(`SELECT id, at FROM reconciliations WHERE id = ${latestComparedCycleSql("?")}`, [botId])) ?? null;
  const latest =
    (yield* one<{ id: number; at: string; outcome: string }>(`SELECT id, at, outcome FROM reconciliations WHERE bot_id = ? ORDER BY at DESC, id DESC LIMIT 1`, [
      botId,
    ])) ?? null;
  const lines = yield* all<Omit<DriftingLine, "drift" | "pending">>(driftingNowSql(dialect), [botId]);
  const drifting: DriftingLine[] = [];
  for (const l of lines) {
    const drift = classifyDrift(l);
    if (drift !== "none") drifting.push({ ...l, drift, pending: yield* pendingCorrectionReads(botId, l.symbol) });
  }
  const rows = yield* all<CorrectionRow>(`SELECT ${CORRECTION_COLUMNS} FROM book_corrections WHERE bot_id = ? ORDER BY id DESC LIMIT ?`, [botId, limit]);
  const driftsNow = new Set(drifting.map((l) => l.symbol));
  const seen = new Set<string>();
  const corrections: CorrectionView[] = [];
  for (const c of rows) {
    const newest = !seen.has(c.symbol);
    seen.add(c.symbol);
    const pending = yield* isPending(botId, c);
    // The newest correction of a symbol that drifts now did not end the drift (yet), whatever came between.
    const inSync =
      newest && driftsNow.has(c.symbol)
        ? undefined
        : (yield* one<{ at: string }>(IN_SYNC_AFTER_SQL, [c.symbol, botId, c.reconciliationId, c.reconciliationId]))?.at;
    const status: CorrectionStatus = inSync !== undefined ? { state: "in_sync", since: inSync } : pending ? { state: "pending" } : { state: "still_drifting" };
    corrections.push({ ...c, after: c.ours + c.delta, status });
  }
  return { drifting, compared, latest, corrections };
}

/** The bot page's book: the symbols that drift now, each with any pending correction, and the bot's corrections with what became of each. */
export function getBookCorrections(params: { db: Db | JournalQuery; botId: string; limit?: number }): Promise<BookCorrectionsView> {
  const q = queryOf(params.db);
  return runReads(q, bookCorrectionsReads(q.dialect, params.botId, params.limit ?? 20));
}
