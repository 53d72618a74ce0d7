import "server-only";
import type Database from "better-sqlite3";
import { diffLine, type DriftClass } from "../reconcile/diff";

export interface CurrentBookLine {
  botId: string;
  symbol: string;
  ours: number;
  theirs: number;
  qtyStep: number;
  drift: DriftClass;
  driftSince: string | null;
  reconciliationId: number;
}

/**
 * One bot's current line for one symbol, as the overview reads it: latest_positions, unless the
 * bot's latest compared cycle left the symbol out (then it was flat on both sides). Raw SQL on a
 * better-sqlite3 connection, so actions can call it inside their transaction.
 */
export function getCurrentBookLine(db: Database.Database, params: { botId: string; symbol: string }): CurrentBookLine | null {
  const row = db
    .prepare(
      `SELECT p.bot_id AS botId, p.symbol, p.ours, p.theirs, p.qty_step AS qtyStep, p.drift_since AS driftSince, p.reconciliation_id AS reconciliationId,
              (SELECT r.id FROM reconciliations r WHERE r.bot_id = p.bot_id AND r.outcome IN ('clean', 'drift') ORDER BY r.at DESC, r.id DESC LIMIT 1) AS latestId
       FROM latest_positions p WHERE p.bot_id = ? AND p.symbol = ?`,
    )
    .get(params.botId, params.symbol) as (Omit<CurrentBookLine, "drift"> & { latestId: number | null }) | undefined;
  if (!row) return null;
  const current = row.latestId === null || row.reconciliationId >= row.latestId;
  const ours = current ? row.ours : 0;
  const theirs = current ? row.theirs : 0;
  const drift = diffLine({ symbol: row.symbol, ours, theirs, qtyStep: row.qtyStep }).drift;
  return {
    botId: row.botId,
    symbol: row.symbol,
    ours,
    theirs,
    qtyStep: row.qtyStep,
    drift,
    driftSince: drift === "none" ? null : row.driftSince,
    reconciliationId: current ? row.reconciliationId : (row.latestId ?? row.reconciliationId),
  };
}

export interface AckSeen {
  drift: DriftClass;
  ours: number;
  theirs: number;
  driftSince: string | null;
  expiresAt: string;
}

/**
 * Does an acknowledgement still cover the line? Not after it expires, and not once the drift
 * changed class, grew beyond what was acknowledged, or is a new episode.
 */
export function ackCovers(ack: AckSeen, line: Pick<CurrentBookLine, "drift" | "ours" | "theirs" | "qtyStep" | "driftSince">, now: Date): { covers: boolean; why: string } {
  if (line.drift === "none") return { covers: false, why: "no drift" };
  if (Date.parse(ack.expiresAt) <= now.getTime()) return { covers: false, why: "acknowledgement expired" };
  if (ack.drift !== line.drift) return { covers: false, why: `drift changed class (${ack.drift} → ${line.drift})` };
  if (ack.driftSince !== line.driftSince) return { covers: false, why: "a new drift episode started" };
  if (Math.abs(line.theirs - line.ours) > Math.abs(ack.theirs - ack.ours) + line.qtyStep / 2) return { covers: false, why: "the drift grew" };
  return { covers: true, why: "acknowledged" };
}
