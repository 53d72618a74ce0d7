import "server-only";
import type Database from "better-sqlite3";
import type { JournalDb } from "../db/console";
import type { BreakerRow, ReconciliationPositionRow, ReconciliationRow } from "../db/schema";
import { connectionOf } from "../db/statements";
import { byteOrder } from "../db/dialect";
import { queryOf, type Dialect, type JournalQuery } from "../db/query";
import { all, one, runReads, runReadsSync, type Reads } from "../db/reads";
import { clearChecklist, type ChecklistItem, type ClearFacts, type UnacknowledgedDrift } from "../breaker/clear-checklist";
import { classifyDrift, driftSql } from "../reconcile/diff";
import { doubtfulCutoff, doubtfulOrderSql } from "../journal/order-state";

const DRIFTING = driftSql({ ours: "p.ours", theirs: "p.theirs", qtyStep: "p.qty_step" });

/**
 * The facts behind the clear checklist, for one bot. Costs what happened since the trip (drifting
 * symbols of the cycles since then), never the whole history.
 */
/** A page's read handle, or the action guard's write connection inside its transaction. */
type ChecklistDb = JournalDb | Database.Database;

export interface ClearFactsParams {
  db: ChecklistDb;
  botId: string;
  now: Date;
  heartbeatStaleMs: number;
  doubtfulGraceMs: number;
}

/** What clearFactsReads reads, on either engine. */
export interface ClearFactsReads {
  breaker: Pick<BreakerRow, "halted" | "version" | "changedAt" | "reason"> | undefined;
  /** The bot's last two reconciliations, newest first. */
  last: NonNullable<ClearFacts["lastReconciliation"]> | undefined;
  previous: NonNullable<ClearFacts["lastReconciliation"]> | undefined;
  /** The last cycle's drifting lines as the SQL found them (empty unless it was a drift). */
  lastDriftLines: (ClearFacts["lastDrifts"][number] & { qtyStep: number })[];
  heartbeatAt: string | null;
  doubtfulOrders: number;
  /** Per symbol since the trip, its latest unacknowledged drifting cycle (empty unless halted). */
  unacknowledged: (Omit<UnacknowledgedDrift, "drift" | "ongoing"> & { qtyStep: number })[];
}

/** The reads shaped into the checklist's facts: one rule for both engines. */
export function shapeClearFacts(params: Pick<ClearFactsParams, "botId" | "now" | "heartbeatStaleMs">, r: ClearFactsReads): ClearFacts {
  const lastReconciliation = r.last ?? null;
  const cycleMs = r.last && r.previous ? Date.parse(r.last.at) - Date.parse(r.previous.at) : null;
  return {
    now: params.now,
    botId: params.botId,
    lastDrifts: r.lastDriftLines.filter((l) => classifyDrift(l) !== "none").map(({ symbol, ours, theirs }) => ({ symbol, ours, theirs })),
    cycleMs: cycleMs !== null && Number.isFinite(cycleMs) && cycleMs > 0 ? cycleMs : null,
    breaker: r.breaker ? { halted: r.breaker.halted === 1, version: r.breaker.version, changedAt: r.breaker.changedAt, reason: r.breaker.reason } : null,
    lastReconciliation,
    heartbeatAt: r.heartbeatAt,
    heartbeatStaleMs: params.heartbeatStaleMs,
    doubtfulOrders: r.doubtfulOrders,
    unacknowledgedDrifts: r.unacknowledged.flatMap(({ qtyStep, ...u }) => {
      const drift = classifyDrift({ ours: u.ours, theirs: u.theirs, qtyStep });
      return drift === "none" ? [] : [{ ...u, drift, ongoing: lastReconciliation !== null && u.reconciliationId === lastReconciliation.id }];
    }),
  };
}

/**
 * The facts' reads, written once for both engines (lib/db/reads.ts). `lock`: a PostgreSQL action
 * locks the bot's breaker row (`FOR UPDATE`), so a bot tripping it again while a clear runs waits
 * for the clear, then trips; a SQLite action's write transaction already holds the whole file.
 */
function* clearFactsReads(dialect: Dialect, params: Omit<ClearFactsParams, "db">, lock: boolean): Reads<ClearFacts> {
  const { botId, now } = params;
  const pg = dialect === "postgres";
  const breaker = yield* one<NonNullable<ClearFactsReads["breaker"]>>(
    `SELECT halted, version, changed_at AS changedAt, reason FROM breakers WHERE bot_id = ?${pg && lock ? " FOR UPDATE" : ""}`,
    [botId],
  );
  // The last two: the newest is the checklist's, the gap between them is how often the bot reconciles.
  const [last, previous] = yield* all<NonNullable<ClearFacts["lastReconciliation"]>>(
    `SELECT id, at, outcome FROM reconciliations WHERE bot_id = ? ORDER BY at DESC, id DESC LIMIT 2`,
    [botId],
  );
  const lastDriftLines =
    last?.outcome === "drift"
      ? yield* all<ClearFactsReads["lastDriftLines"][number]>(
          `SELECT p.symbol, p.ours, p.theirs, p.qty_step AS qtyStep FROM reconciliation_positions p WHERE p.reconciliation_id = ? AND ${DRIFTING} ORDER BY ${byteOrder(dialect, "p.symbol")} LIMIT 5`,
          [last.id],
        )
      : [];
  const heartbeatAt =
    (yield* one<{ heartbeatAt: string | null }>(`SELECT heartbeat_at AS heartbeatAt FROM bots WHERE bot_id = ?`, [botId]))?.heartbeatAt ?? null;
  const cutoff = doubtfulCutoff({ now, graceMs: params.doubtfulGraceMs });
  const doubtfulOrders = (yield* one<{ n: number }>(
    `SELECT count(*) AS n FROM orders WHERE bot_id = ? AND ${doubtfulOrderSql({ state: "state", updatedAt: "updated_at", cutoffParam: "?", dialect })}`,
    [botId, cutoff],
  ))!.n;
  let unacknowledged: ClearFactsReads["unacknowledged"] = [];
  if (breaker && breaker.halted === 1) {
    // Per symbol, its latest drifting cycle since the trip and how many there were. An
    // acknowledgement counts when it was made on a cycle since the trip (both times on the bot's
    // clock), or recorded since the trip by the console's clock: a console clock behind the bot's
    // must not void it, nor a trip stamped a moment after the cycle that caused it.
    const since = breaker.changedAt;
    const notAcknowledged = `NOT EXISTS (SELECT 1 FROM drift_acknowledgements a LEFT JOIN reconciliations ar ON ar.id = a.reconciliation_id
                           WHERE a.bot_id = r.bot_id AND a.symbol = p.symbol AND (ar.at >= ? OR a.acknowledged_at >= ?))`;
    const from = `FROM reconciliations r JOIN reconciliation_positions p ON p.reconciliation_id = r.id WHERE r.bot_id = ? AND r.at >= ? AND ${DRIFTING} AND ${notAcknowledged}`;
    unacknowledged = pg
      ? yield* all<ClearFactsReads["unacknowledged"][number]>(
          `SELECT DISTINCT ON (p.symbol COLLATE "C") p.symbol, r.id AS reconciliationId, r.at, p.ours, p.theirs, p.qty_step AS qtyStep,
                  count(*) OVER (PARTITION BY p.symbol) AS cycles
           ${from} ORDER BY p.symbol COLLATE "C", r.at DESC, r.id DESC`,
          [botId, since, since, since],
        )
      : // `latest` only picks the row (SQLite's bare columns of max()); it is no fact.
        (yield* all<ClearFactsReads["unacknowledged"][number] & { latest: string }>(
          `SELECT p.symbol, r.id AS reconciliationId, r.at, p.ours, p.theirs, p.qty_step AS qtyStep, count(*) AS cycles,
                  max(r.at || printf('%020d', r.id)) AS latest
           ${from} GROUP BY p.symbol ORDER BY p.symbol`,
          [botId, since, since, since],
        )).map(({ latest: _latest, ...r }) => r);
  }
  return shapeClearFacts(params, { breaker, last, previous, lastDriftLines, heartbeatAt, doubtfulOrders, unacknowledged });
}

/** The facts on a SQLite connection: a page's read handle, or the clear action's write connection in its transaction. */
export function getClearFacts(params: ClearFactsParams): ClearFacts {
  return runReadsSync(params.db, clearFactsReads("sqlite", params, false));
}

/** The facts on any engine's handle: a page's (SQLite or PostgreSQL), or a PostgreSQL action's in its transaction, with the breaker row locked. */
export function readClearFacts(q: JournalQuery, params: Omit<ClearFactsParams, "db">, opts: { lock: boolean } = { lock: false }): Promise<ClearFacts> {
  return runReads(q, clearFactsReads(q.dialect, params, opts.lock));
}

/**
 * One symbol's latest drifting cycle at or after `since` (the trip), acknowledged or not: what an
 * acknowledgement of a drift that ended refers to. Same drift rule as getClearFacts above.
 */
const LATEST_DRIFT_SINCE_SQL = `SELECT r.id, r.at, p.ours, p.theirs, p.qty_step AS "qtyStep" FROM reconciliations r JOIN reconciliation_positions p ON p.reconciliation_id = r.id
       WHERE r.bot_id = ? AND p.symbol = ? AND r.at >= ? AND ${DRIFTING}
       ORDER BY r.at DESC, r.id DESC LIMIT 1`;

type LatestDrift = Pick<ReconciliationRow, "id" | "at"> & Pick<ReconciliationPositionRow, "ours" | "theirs" | "qtyStep">;

export function latestDriftSince(params: { db: ChecklistDb; botId: string; symbol: string; since: string }) {
  return connectionOf(params.db).prepare(LATEST_DRIFT_SINCE_SQL).get(params.botId, params.symbol, params.since) as LatestDrift | undefined;
}

/** latestDriftSince on any engine's handle (lib/db/query.ts): the PostgreSQL actions read it in their transaction. */
export function readLatestDriftSince(params: { q: JournalQuery; botId: string; symbol: string; since: string }): Promise<LatestDrift | undefined> {
  return params.q.get<LatestDrift>(LATEST_DRIFT_SINCE_SQL, [params.botId, params.symbol, params.since]);
}

/** The checklist beside the button: the facts (readClearFacts) and the items the action checks again. */
export async function getClearChecklist(
  params: Omit<ClearFactsParams, "db"> & { db: ChecklistDb | JournalQuery },
): Promise<{ facts: ClearFacts; items: ChecklistItem[] }> {
  const facts = await readClearFacts(queryOf(params.db), params);
  return { facts, items: clearChecklist(facts) };
}
