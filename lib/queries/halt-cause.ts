import "server-only";
import type { JournalDb } from "../db/console";
import { queryOf, type JournalQuery } from "../db/query";
import { COMPARED_OUTCOMES_SQL } from "../reconcile/current-line";
import { classifyDrift, driftSql } from "../reconcile/diff";
import type { CauseOrderSettled } from "../breaker/halt-cause";
import { orderIdsInReason } from "../incidents/story";

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

/** The bot's latest trip, for the orders its reason names. */
const LATEST_TRIP_REASON_SQL = `
  SELECT e.reason, e.at FROM breaker_events e
  WHERE e.bot_id = ? AND e.kind = 'trip' ORDER BY e.at DESC, e.id DESC LIMIT 1`;

/** While an order is in one of these, nobody knows yet what became of it on the exchange. */
const NOT_YET_KNOWN = new Set(["created", "sent", "unknown"]);

/** The newest event that told the order's state since the trip: a resolution, a lookup, or the bot's status. */
const SETTLING_EVENT_SQL = `
  SELECT at, kind, actor FROM order_events
  WHERE client_order_id = ? AND at >= ? AND kind IN ('operator', 'lookup_found', 'lookup_absent', 'status')
  ORDER BY at DESC, id DESC LIMIT 1`;

/**
 * How the orders the bot's latest trip names ("order a1-… unknown: lookup failed") were settled:
 * each one's state, when and by whom, once every one of them is known again (no longer created,
 * sent or unknown); null while any is not, or when the reason names none of the bot's orders. Costs,
 * for a halted bot only, one seek per named order (a reason names a few at most).
 */
export async function getCauseOrdersSettled(params: { db: JournalDb | JournalQuery; botId: string }): Promise<CauseOrderSettled[] | null> {
  const { botId } = params;
  const q = queryOf(params.db);
  const trip = await q.get<{ reason: string; at: string }>(LATEST_TRIP_REASON_SQL, [botId]);
  if (!trip) return null;
  const ids = orderIdsInReason(trip.reason);
  if (ids.length === 0) return null;
  const orders = await q.all<{ clientOrderId: string; state: string; updatedAt: string }>(
    `SELECT client_order_id AS "clientOrderId", state, updated_at AS "updatedAt" FROM orders
     WHERE bot_id = ? AND client_order_id IN (${ids.map(() => "?").join(", ")})`,
    [botId, ...ids],
  );
  if (orders.length === 0 || orders.some((o) => NOT_YET_KNOWN.has(o.state))) return null;
  const out: CauseOrderSettled[] = [];
  for (const o of orders) {
    const e = await q.get<{ at: string; kind: string; actor: string }>(SETTLING_EVENT_SQL, [o.clientOrderId, trip.at]);
    // No event (a row changed by hand): the row's own time, and nobody named.
    out.push(
      e
        ? {
            clientOrderId: o.clientOrderId,
            state: o.state,
            at: e.at,
            by: e.actor,
            how: e.kind === "operator" ? "hand" : e.kind === "status" ? "bot" : "lookup",
          }
        : { clientOrderId: o.clientOrderId, state: o.state, at: o.updatedAt, by: null, how: "bot" },
    );
  }
  return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}
