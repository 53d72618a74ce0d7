import "server-only";
import { botStatus, type BotStatus } from "../breaker/bot-status";
import type { JournalDb } from "../db/console";
import { jsonObjectSql } from "../db/dialect";
import { queryOf, type Dialect, type JournalQuery } from "../db/query";
import type { CauseOrderSettled } from "../breaker/halt-cause";
import { getCauseInSyncSince, getCauseOrdersSettled } from "./halt-cause";
import { observeHeartbeat } from "./heartbeat-motion";
import { latestComparedCycleSql } from "../reconcile/current-line";

export interface BotSummary {
  botId: string;
  exchange: string;
  clientIdPrefix: string;
  status: BotStatus;
  reasons: string[];
  /** Those reasons that nothing vouches for the bot now (botStatus): the overview's alarms. */
  alarms: string[];
  /** What a halted bot also is, STALE or UNKNOWN (botStatus); null otherwise. */
  haltedAlso: "stale" | "unknown" | null;
  heartbeatAt: string | null;
  heartbeatAgeMs: number | null;
  breaker: {
    halted: boolean;
    reason: string | null;
    changedAt: string;
    changedBy: string;
    version: number;
    /** Halted, and every symbol that tripped it back in sync since this time (getCauseInSyncSince); else null. */
    causeInSyncSince: string | null;
    /** Halted, and every order the trip's reason names settled since (getCauseOrdersSettled); else null. */
    causeOrdersSettled: CauseOrderSettled[] | null;
  } | null;
  lastReconciliation: { at: string; outcome: string; ordersInFlight?: number | null; error?: string | null; ageMs: number | null } | null;
  /** The latest cycle that compared the books (clean or drift): the last one, or an earlier one while cycles are skipped or fail. */
  lastCompared: { at: string; outcome: string; ageMs: number | null } | null;
  /** Why the last cycle did not compare the books while lastCompared vouches for them (botStatus); else null. */
  notComparedWhy: string | null;
}

/**
 * Bots with their breaker, last cycle and last cycle that compared the books (the same as the last
 * but while a fill settles or after a failed read); each one backward step down (bot_id, at).
 */
export const botsSql = (dialect: Dialect) => `
  SELECT b.bot_id AS "botId", b.exchange, b.client_id_prefix AS "clientIdPrefix", b.heartbeat_at AS "heartbeatAt",
         k.halted, k.reason, k.changed_at AS "changedAt", k.changed_by AS "changedBy", k.version AS "breakerVersion",
         (SELECT ${jsonObjectSql(dialect, [
           ["at", "r.at"],
           ["outcome", "r.outcome"],
           ["ordersInFlight", "r.orders_in_flight"],
           ["error", "r.error"],
         ])} FROM reconciliations r
           WHERE r.bot_id = b.bot_id ORDER BY r.at DESC, r.id DESC LIMIT 1) AS "lastReconciliation",
         (SELECT ${jsonObjectSql(dialect, [
           ["at", "c.at"],
           ["outcome", "c.outcome"],
         ])} FROM reconciliations c WHERE c.id = ${latestComparedCycleSql("b.bot_id")}) AS "lastCompared"
  FROM bots b LEFT JOIN breakers k ON k.bot_id = b.bot_id
  ORDER BY b.bot_id`;
const BOTS_SQL = { sqlite: botsSql("sqlite"), postgres: botsSql("postgres") };

/**
 * One row per bot, shaped for its card. Costs O(bots): the last reconciliation is one index seek
 * per bot on reconciliations(bot_id, at), whatever the history.
 */
export async function listBots(params: {
  db: JournalDb | JournalQuery;
  now: Date;
  heartbeatStaleMs: number;
  reconciliationStaleMs: number;
}): Promise<BotSummary[]> {
  const { now } = params;
  const q = queryOf(params.db);
  const rows = await q.all<{
    botId: string;
    exchange: string;
    clientIdPrefix: string;
    heartbeatAt: string | null;
    halted: number | null;
    reason: string | null;
    changedAt: string | null;
    changedBy: string | null;
    breakerVersion: number | null;
    lastReconciliation: string | null;
    lastCompared: string | null;
  }>(BOTS_SQL[q.dialect]);

  // The halted bots' causes, all at once (one round trip each on PostgreSQL, overlapping).
  const causes = await Promise.all(rows.map((r) => (r.halted === 1 ? getCauseInSyncSince({ db: q, botId: r.botId }) : null)));
  const settled = await Promise.all(rows.map((r) => (r.halted === 1 ? getCauseOrdersSettled({ db: q, botId: r.botId }) : null)));
  return rows.map((r, i) => {
    const breaker =
      r.halted === null || r.changedAt === null || r.changedBy === null || r.breakerVersion === null
        ? null
        : {
            halted: r.halted === 1,
            reason: r.reason,
            changedAt: r.changedAt,
            changedBy: r.changedBy,
            version: r.breakerVersion,
            causeInSyncSince: causes[i] ?? null,
            causeOrdersSettled: settled[i] ?? null,
          };
    const lastRec = r.lastReconciliation
      ? (JSON.parse(r.lastReconciliation) as { at: string; outcome: string; ordersInFlight?: number | null; error?: string | null })
      : null;
    const lastCompared = r.lastCompared ? (JSON.parse(r.lastCompared) as { at: string; outcome: string }) : null;
    const s = botStatus({
      now,
      breaker,
      heartbeatAt: r.heartbeatAt,
      lastReconciliation: lastRec,
      lastCompared,
      heartbeatStaleMs: params.heartbeatStaleMs,
      reconciliationStaleMs: params.reconciliationStaleMs,
      heartbeatMovedAgoMs: observeHeartbeat(q.key, r.botId, r.heartbeatAt, now),
    });
    return {
      botId: r.botId,
      exchange: r.exchange,
      clientIdPrefix: r.clientIdPrefix,
      status: s.status,
      reasons: s.reasons,
      alarms: s.alarms,
      haltedAlso: s.haltedAlso,
      heartbeatAt: r.heartbeatAt,
      heartbeatAgeMs: s.heartbeatAgeMs,
      breaker,
      lastReconciliation: lastRec ? { ...lastRec, ageMs: s.reconciliationAgeMs } : null,
      lastCompared: lastCompared ? { ...lastCompared, ageMs: s.comparedAgeMs } : null,
      notComparedWhy: s.notComparedWhy,
    };
  });
}
