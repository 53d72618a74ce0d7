import "server-only";
import type { JournalDb } from "../db/console";
import { queryOf, type Dialect, type JournalQuery } from "../db/query";
import { doubtfulCutoff, doubtfulOrderSql } from "../journal/order-state";
import { ackCovers } from "../reconcile/ack-coverage";
import { latestComparedCycleSql, lineAsOfLatestCycle } from "../reconcile/current-line";
import { diffLine, type DriftClass } from "../reconcile/diff";
import { listBots, type BotSummary } from "./bots";
import { HEARTBEAT_STALE, RECONCILIATION_STALE } from "../breaker/bot-status";
import { markOfLine } from "./last-mark";
import type { DriftExplainedBy } from "./drift-explained";
import type { SourceHealth } from "./fleet";

export interface OverviewLine {
  botId: string;
  symbol: string;
  ours: number;
  theirs: number;
  /** theirs - ours */
  difference: number;
  steps: number;
  qtyStep: number;
  markPrice: number | null;
  /** Time of the earlier cycle the mark comes from when the line's own cycle wrote none. */
  markAt: string | null;
  /** |difference| at the mark price; null without a mark. */
  driftNotional: number | null;
  drift: DriftClass;
  driftSince: string | null;
  driftForMs: number | null;
  /** Time of the reconciliation this line comes from. */
  at: string;
  /** The acknowledgement that still covers this drift, if any. */
  ack: { by: string; at: string; expiresAt: string; note: string } | null;
  /** Why the last acknowledgement no longer covers it (expired, grew, changed class…). */
  ackLapsed: string | null;
  /** The doubtful orders whose fills would explain this drift (set by the screens' loaders). */
  explainedBy?: DriftExplainedBy | null;
}

export interface OverviewBot extends BotSummary {
  doubtfulOrders: number;
  /** When the oldest of them was written (its intent's created_at); null when none is doubtful. */
  oldestDoubtfulAt: string | null;
  /** The newest doubtful orders (up to NEWEST_DOUBTFUL), newest first: what a desktop notification names. */
  newestDoubtful: { clientOrderId: string; symbol: string }[];
  symbolsInDrift: number;
  unknownPositions: number;
  /** The journal it comes from, when the console reads several (lib/queries/fleet.ts). */
  source?: string;
  /** Its journal cannot be read now, and it was halted when last read: still named as halted, with that time. */
  lastKnownHalt?: { since: string; reason: string | null; readAt: string };
  /** Its journal cannot be read now, and it was not halted when last read, at this time (lastKnownHalt when it was). */
  lastReadAt?: string;
  /** Its journal cannot be read now: its heartbeat, breaker, cycles and orders are unknown, not "never" or "none". */
  journalUnread?: true;
}

export interface Overview {
  readAt: string;
  bots: OverviewBot[];
  lines: OverviewLine[];
  /** Why nothing may look healthy right now, one sentence each; empty when all is fresh. */
  alarms: string[];
  /** Each journal's state, when the console reads several (lib/queries/fleet.ts). */
  sources?: SourceHealth[];
}

const doubtfulCountSql = (dialect: Dialect) => `
  SELECT bot_id AS botId, count(*) AS n, min(created_at) AS oldest FROM orders
  WHERE ${doubtfulOrderSql({ state: "state", updatedAt: "updated_at", cutoffParam: "?", dialect })}
  GROUP BY bot_id`;

/** Enough for "new since the last poll" in any sane incident; the count above stays exact. */
const NEWEST_DOUBTFUL = 20;

const newestDoubtfulSql = (dialect: Dialect) => `
  SELECT "botId", "clientOrderId", symbol FROM (
    SELECT bot_id AS botId, client_order_id AS clientOrderId, symbol,
           row_number() OVER (PARTITION BY bot_id ORDER BY created_at DESC, client_order_id DESC) AS n
    FROM orders
    WHERE ${doubtfulOrderSql({ state: "state", updatedAt: "updated_at", cutoffParam: "?", dialect })}
  ) AS newest WHERE n <= ${NEWEST_DOUBTFUL}
  ORDER BY "botId", n`;

const SQL = {
  sqlite: { doubtfulCount: doubtfulCountSql("sqlite"), newestDoubtful: newestDoubtfulSql("sqlite") },
  postgres: { doubtfulCount: doubtfulCountSql("postgres"), newestDoubtful: newestDoubtfulSql("postgres") },
};

/** The latest line per symbol, against the latest cycle that compared the books, per bot: a symbol that cycle left out was flat on both sides. */
const LINES_SQL = `
  WITH latest AS MATERIALIZED (
    SELECT b.bot_id, ${latestComparedCycleSql("b.bot_id")} AS id
    FROM bots b
  )
  SELECT p.bot_id AS botId, p.symbol, p.reconciliation_id AS reconciliationId, p.at, p.ours, p.theirs,
         p.qty_step AS qtyStep, p.mark_price AS markPrice, p.drift_since AS driftSince,
         l.id AS latestId, (SELECT at FROM reconciliations WHERE id = l.id) AS latestAt
  FROM latest_positions p LEFT JOIN latest l ON l.bot_id = p.bot_id
  ORDER BY p.bot_id, p.symbol`;

const LAST_ACK_SQL = `
  SELECT drift, ours, theirs, drift_since AS driftSince, expires_at AS expiresAt, acknowledged_by AS by, acknowledged_at AS at, note
  FROM drift_acknowledgements WHERE bot_id = ? AND symbol = ? ORDER BY id DESC LIMIT 1`;

/**
 * Everything the overview shows, in O(bots + symbols): bot rows, the latest_positions rows kept by
 * the journal's trigger, and a count over the partial index of unsettled orders.
 */
export async function getOverview(params: {
  db: JournalDb | JournalQuery;
  now: Date;
  heartbeatStaleMs: number;
  reconciliationStaleMs: number;
  doubtfulGraceMs: number;
}): Promise<Overview> {
  const { now } = params;
  const q = queryOf(params.db);
  const sql = SQL[q.dialect];
  const cutoff = doubtfulCutoff({ now, graceMs: params.doubtfulGraceMs });
  // Independent reads, issued together: on PostgreSQL their round trips overlap; on SQLite they run in turn as before.
  const [bots, counts, newest, rows] = await Promise.all([
    listBots({ ...params, db: q }),
    q.all<{ botId: string; n: number; oldest: string }>(sql.doubtfulCount, [cutoff]),
    q.all<{ botId: string; clientOrderId: string; symbol: string }>(sql.newestDoubtful, [cutoff]),
    q.all<{
      botId: string;
      symbol: string;
      reconciliationId: number;
      at: string;
      ours: number;
      theirs: number;
      qtyStep: number;
      markPrice: number | null;
      driftSince: string | null;
      latestId: number | null;
      latestAt: string | null;
    }>(LINES_SQL),
  ]);

  const doubtful = new Map(counts.map((r) => [r.botId, r]));
  const newestDoubtful = new Map<string, { clientOrderId: string; symbol: string }[]>();
  for (const r of newest) {
    const list = newestDoubtful.get(r.botId) ?? [];
    list.push({ clientOrderId: r.clientOrderId, symbol: r.symbol });
    newestDoubtful.set(r.botId, list);
  }

  // Only drifting lines need their acknowledgement: O(drifting symbols), one index seek each.
  const lastAck = (botId: string, symbol: string) =>
    q.get<{
      drift: "size_drift" | "unknown_position";
      ours: number;
      theirs: number;
      driftSince: string | null;
      expiresAt: string;
      by: string;
      at: string;
      note: string;
    }>(LAST_ACK_SQL, [botId, symbol]);

  const lines: OverviewLine[] = await Promise.all(
    rows.map(async (r): Promise<OverviewLine> => {
      const { ours, theirs, at } = lineAsOfLatestCycle(r, r.latestId === null ? null : { id: r.latestId, at: r.latestAt });
      const drifting = diffLine({ symbol: r.symbol, ours, theirs, qtyStep: r.qtyStep }).drift !== "none";
      // Only a drift shows a notional, so only a drift pays for looking up an older mark.
      const mark = drifting ? await markOfLine({ db: q, botId: r.botId, symbol: r.symbol, markPrice: r.markPrice }) : { markPrice: r.markPrice, markAt: null };
      const d = diffLine({ symbol: r.symbol, ours, theirs, qtyStep: r.qtyStep, markPrice: mark.markPrice });
      const driftSince = d.drift === "none" ? null : r.driftSince;
      const since = driftSince === null ? NaN : Date.parse(driftSince);
      let ack: OverviewLine["ack"] = null;
      let ackLapsed: string | null = null;
      if (d.drift !== "none") {
        const a = await lastAck(r.botId, r.symbol);
        if (a) {
          const verdict = ackCovers(a, { drift: d.drift, ours, theirs, qtyStep: r.qtyStep, driftSince }, now);
          if (verdict.covers) ack = { by: a.by, at: a.at, expiresAt: a.expiresAt, note: a.note };
          else ackLapsed = verdict.why;
        }
      }
      return {
        botId: r.botId,
        symbol: r.symbol,
        ours,
        theirs,
        difference: d.difference,
        steps: d.steps,
        qtyStep: r.qtyStep,
        markPrice: mark.markPrice,
        markAt: mark.markAt,
        driftNotional: d.driftNotional,
        drift: d.drift,
        driftSince,
        driftForMs: Number.isNaN(since) ? null : now.getTime() - since,
        at,
        ack,
        ackLapsed,
      };
    }),
  );

  const alarms: string[] = [];
  const enriched = bots.map((b) => {
    const mine = lines.filter((l) => l.botId === b.botId);
    // A stopped bot's "heartbeat is stale" and "last reconciliation is stale" are one alarm: as two
    // they pushed other bots' causes past the banner's first three.
    const causes = b.alarms;
    const bothStale = causes.includes(HEARTBEAT_STALE) && causes.includes(RECONCILIATION_STALE);
    for (const reason of causes) {
      if (bothStale && reason === RECONCILIATION_STALE) continue;
      alarms.push(`${b.botId}: ${bothStale && reason === HEARTBEAT_STALE ? `${HEARTBEAT_STALE}, and so is its last reconciliation` : reason}`);
    }
    return {
      ...b,
      doubtfulOrders: doubtful.get(b.botId)?.n ?? 0,
      oldestDoubtfulAt: doubtful.get(b.botId)?.oldest ?? null,
      newestDoubtful: newestDoubtful.get(b.botId) ?? [],
      symbolsInDrift: mine.filter((l) => l.drift !== "none").length,
      unknownPositions: mine.filter((l) => l.drift === "unknown_position").length,
    };
  });
  return { readAt: now.toISOString(), bots: enriched, lines, alarms };
}
