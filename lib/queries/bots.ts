import "server-only";
import { asc, desc, eq, sql } from "drizzle-orm";
import { botStatus, type BotStatus } from "../breaker/bot-status";
import type { JournalDb } from "../db/console";
import { breakers, bots, reconciliations } from "../db/schema";
import { observeHeartbeat } from "./heartbeat-motion";

export interface BotSummary {
  botId: string;
  exchange: string;
  clientIdPrefix: string;
  status: BotStatus;
  reasons: string[];
  heartbeatAt: string | null;
  heartbeatAgeMs: number | null;
  breaker: { halted: boolean; reason: string | null; changedAt: string; changedBy: string; version: number } | null;
  lastReconciliation: { at: string; outcome: string; ageMs: number | null } | null;
}

/**
 * One row per bot, shaped for its card. Costs O(bots): the last reconciliation is one index seek
 * per bot on reconciliations(bot_id, at), whatever the history.
 */
export function listBots(params: {
  db: JournalDb;
  now: Date;
  heartbeatStaleMs: number;
  reconciliationStaleMs: number;
}): BotSummary[] {
  const { db, now } = params;
  const last = db
    .select({ at: reconciliations.at, outcome: reconciliations.outcome })
    .from(reconciliations)
    .where(eq(reconciliations.botId, bots.botId))
    .orderBy(desc(reconciliations.at), desc(reconciliations.id))
    .limit(1);
  const rows = db
    .select({
      botId: bots.botId,
      exchange: bots.exchange,
      clientIdPrefix: bots.clientIdPrefix,
      heartbeatAt: bots.heartbeatAt,
      halted: breakers.halted,
      reason: breakers.reason,
      changedAt: breakers.changedAt,
      changedBy: breakers.changedBy,
      breakerVersion: breakers.version,
      lastReconciliation: sql<string | null>`(select json_object('at', at, 'outcome', outcome) from (${last}))`,
    })
    .from(bots)
    .leftJoin(breakers, eq(breakers.botId, bots.botId))
    .orderBy(asc(bots.botId))
    .all();

  return rows.map((r) => {
    const breaker =
      r.halted === null || r.changedAt === null || r.changedBy === null || r.breakerVersion === null
        ? null
        : { halted: r.halted === 1, reason: r.reason, changedAt: r.changedAt, changedBy: r.changedBy, version: r.breakerVersion };
    const lastRec = r.lastReconciliation ? (JSON.parse(r.lastReconciliation) as { at: string; outcome: string }) : null;
    const s = botStatus({
      now,
      breaker,
      heartbeatAt: r.heartbeatAt,
      lastReconciliation: lastRec,
      heartbeatStaleMs: params.heartbeatStaleMs,
      reconciliationStaleMs: params.reconciliationStaleMs,
      heartbeatMovedAgoMs: observeHeartbeat(db, r.botId, r.heartbeatAt, now),
    });
    return {
      botId: r.botId,
      exchange: r.exchange,
      clientIdPrefix: r.clientIdPrefix,
      status: s.status,
      reasons: s.reasons,
      heartbeatAt: r.heartbeatAt,
      heartbeatAgeMs: s.heartbeatAgeMs,
      breaker,
      lastReconciliation: lastRec ? { ...lastRec, ageMs: s.reconciliationAgeMs } : null,
    };
  });
}
