import "server-only";
import type Database from "better-sqlite3";
import type { JournalDb } from "../db/console";
import { queryOf, type JournalQuery } from "../db/query";
import { connectionOf } from "../db/statements";
import { latestComparedCycleSql, lineAsOfLatestCycle } from "../reconcile/current-line";
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
const CURRENT_LINE_SQL = `SELECT p.bot_id AS botId, p.symbol, p.ours, p.theirs, p.qty_step AS qtyStep, p.drift_since AS driftSince, p.reconciliation_id AS reconciliationId, p.at,
              ${latestComparedCycleSql("p.bot_id")} AS latestId
       FROM latest_positions p WHERE p.bot_id = ? AND p.symbol = ?`;

type CurrentLineRow = Omit<CurrentBookLine, "drift"> & { at: string; latestId: number | null };

export function getCurrentBookLine(params: { db: JournalDb | Database.Database; botId: string; symbol: string }): CurrentBookLine | null {
  const row = connectionOf(params.db).prepare(CURRENT_LINE_SQL).get(params.botId, params.symbol) as CurrentLineRow | undefined;
  return shapeLine(row);
}

/** getCurrentBookLine for the screens' reads, on any engine (lib/db/query.ts). */
export async function readCurrentBookLine(params: { db: JournalDb | JournalQuery; botId: string; symbol: string }): Promise<CurrentBookLine | null> {
  return shapeLine(await queryOf(params.db).get<CurrentLineRow>(CURRENT_LINE_SQL, [params.botId, params.symbol]));
}

function shapeLine(row: CurrentLineRow | undefined): CurrentBookLine | null {
  if (!row) return null;
  const line = lineAsOfLatestCycle(row, row.latestId === null ? null : { id: row.latestId, at: null });
  const drift = diffLine({ symbol: row.symbol, ours: line.ours, theirs: line.theirs, qtyStep: row.qtyStep }).drift;
  return {
    botId: row.botId,
    symbol: row.symbol,
    ours: line.ours,
    theirs: line.theirs,
    qtyStep: row.qtyStep,
    drift,
    driftSince: drift === "none" ? null : row.driftSince,
    reconciliationId: line.reconciliationId,
  };
}
