import "server-only";
import type { JournalDb } from "../db/console";
import { queryOf, type JournalQuery } from "../db/query";
import { COMPARED_OUTCOMES_SQL } from "../reconcile/current-line";
import { classifyDrift, driftSql } from "../reconcile/diff";

const DRIFTING = driftSql({ ours: "p.ours", theirs: "p.theirs", qtyStep: "p.qty_step" });

/** The bot's latest trip and the cycle it names as its cause: one backward seek on breaker_events (bot_id, at). */
const LATEST_TRIP_SQL = `
  SELECT e.reconciliation_id AS causeId FROM breaker_events e
  WHERE e.bot_id = ? AND e.kind = 'trip' ORDER BY e.at DESC, e.id DESC LIMIT 1`;

const CAUSE_LINES_SQL = `SELECT symbol, ours, theirs, qty_step AS qtyStep FROM reconciliation_positions WHERE reconciliation_id = ?`;

/**
 * The symbol's last drifting cycle of this bot since the cause: walks reconciliation_positions
 * (symbol, reconciliation_id) backwards from the newest and stops at the first drifting line, so it
 * reads only the cycles that listed the symbol since it came back (none once it is flat both sides).
 */
const LAST_DRIFTING_SQL = `
  SELECT r.id, r.at FROM reconciliation_positions p JOIN reconciliations r ON r.id = p.reconciliation_id
  WHERE p.symbol = ? AND p.reconciliation_id >= ? AND r.bot_id = ? AND ${DRIFTING}
  ORDER BY p.reconciliation_id DESC LIMIT 1`;

/** The first cycle after it that compared the books: one that listed the symbol in sync, or left it out (flat both sides). */
const FIRST_COMPARED_AFTER_SQL = `
  SELECT at FROM reconciliations
  WHERE bot_id = ? AND outcome IN ${COMPARED_OUTCOMES_SQL} AND (at > ? OR (at = ? AND id > ?))
  ORDER BY at, id LIMIT 1`;

/**
 * When the cause of a bot's current halt went away: the time every symbol that drifted in the
 * tripping cycle was first seen in sync after its last drifting cycle; null while any of them still
 * drifts, or when the trip names no cycle (a halt by hand) or no drifting symbol. Costs, for a halted
 * bot only, the cycles that listed those symbols since they were last seen drifting.
 */
export async function getCauseInSyncSince(params: { db: JournalDb | JournalQuery; botId: string }): Promise<string | null> {
  const { botId } = params;
  const q = queryOf(params.db);
  const trip = await q.get<{ causeId: number | null }>(LATEST_TRIP_SQL, [botId]);
  if (!trip || trip.causeId === null) return null;
  const causeId = trip.causeId;
  const causes = (await q.all<{ symbol: string; ours: number; theirs: number; qtyStep: number }>(CAUSE_LINES_SQL, [causeId])).filter(
    (l) => l.qtyStep <= 0 || classifyDrift(l) !== "none",
  );
  if (causes.length === 0) return null;
  let since: string | null = null;
  for (const c of causes) {
    const last = await q.get<{ id: number; at: string }>(LAST_DRIFTING_SQL, [c.symbol, causeId, botId]);
    if (!last) return null;
    const back = (await q.get<{ at: string }>(FIRST_COMPARED_AFTER_SQL, [botId, last.at, last.at, last.id]))?.at;
    if (back === undefined) return null;
    if (since === null || back > since) since = back;
  }
  return since;
}
