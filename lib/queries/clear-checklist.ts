import "server-only";
import type Database from "better-sqlite3";
import { clearChecklist, type ChecklistItem, type ClearFacts } from "../breaker/clear-checklist";
import { SETTLED_STATES } from "../journal/contract";

const SETTLED = SETTLED_STATES.map((s) => `'${s}'`).join(", ");

/**
 * The facts behind the clear checklist, for one bot. Costs what happened since the trip (drifting
 * symbols of the cycles since then), never the whole history.
 */
export function getClearFacts(db: Database.Database, params: { botId: string; now: Date; heartbeatStaleMs: number; doubtfulGraceMs: number }): ClearFacts {
  const { botId, now } = params;
  const breaker = db.prepare(`SELECT halted, version, changed_at AS changedAt, reason FROM breakers WHERE bot_id = ?`).get(botId) as
    | { halted: number; version: number; changedAt: string; reason: string | null }
    | undefined;
  const lastReconciliation =
    (db.prepare(`SELECT id, at, outcome FROM reconciliations WHERE bot_id = ? ORDER BY at DESC, id DESC LIMIT 1`).get(botId) as ClearFacts["lastReconciliation"] | undefined) ?? null;
  const heartbeatAt = (db.prepare(`SELECT heartbeat_at FROM bots WHERE bot_id = ?`).pluck().get(botId) as string | null | undefined) ?? null;
  const cutoff = new Date(now.getTime() - params.doubtfulGraceMs).toISOString();
  const doubtfulOrders = db
    .prepare(
      `SELECT count(*) FROM orders WHERE bot_id = ? AND state NOT IN (${SETTLED})
       AND (state = 'unknown' OR (state IN ('created', 'sent') AND updated_at < ?))`,
    )
    .pluck()
    .get(botId, cutoff) as number;
  let unacknowledgedDrifts: string[] = [];
  if (breaker && breaker.halted === 1) {
    unacknowledgedDrifts = db
      .prepare(
        `SELECT DISTINCT p.symbol FROM reconciliations r JOIN reconciliation_positions p ON p.reconciliation_id = r.id
         WHERE r.bot_id = ? AND r.at >= ? AND abs(p.ours - p.theirs) >= p.qty_step / 2.0
           AND NOT EXISTS (SELECT 1 FROM drift_acknowledgements a WHERE a.bot_id = r.bot_id AND a.symbol = p.symbol AND a.acknowledged_at >= ?)
         ORDER BY p.symbol`,
      )
      .pluck()
      .all(botId, breaker.changedAt, breaker.changedAt) as string[];
  }
  return {
    now,
    breaker: breaker ? { halted: breaker.halted === 1, version: breaker.version, changedAt: breaker.changedAt, reason: breaker.reason } : null,
    lastReconciliation,
    heartbeatAt,
    heartbeatStaleMs: params.heartbeatStaleMs,
    doubtfulOrders,
    unacknowledgedDrifts,
  };
}

export function getClearChecklist(db: Database.Database, params: Parameters<typeof getClearFacts>[1]): { facts: ClearFacts; items: ChecklistItem[] } {
  const facts = getClearFacts(db, params);
  return { facts, items: clearChecklist(facts) };
}
