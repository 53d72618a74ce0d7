import "server-only";
import type { JournalDb } from "../db/console";
import { byteOrder, jsonIntArraySql } from "../db/dialect";
import { queryOf, type Dialect, type JournalQuery } from "../db/query";
import { all, runReads, type Reads } from "../db/reads";
import type { IncidentDrift } from "../incidents/events";
import { classifyDrift, driftSql } from "../reconcile/diff";

const DRIFTING = driftSql({ ours: "ours", theirs: "theirs", qtyStep: "qty_step" });

/**
 * The drifting symbols of the given cycles, read through the positions' primary key in batches:
 * what a drift cycle or a trip it caused is about. Cycles without drift are absent from the map.
 * Only the drifting lines leave SQLite (driftSql; classifyDrift still names them): the reference
 * journal's busiest hour has 52 drift cycles holding 2,600 lines, of which 52 drift, and a row
 * built for each of the others made this read 3.2 ms instead of 0.5 (docs/performance.md).
 * Written once for both engines (lib/db/reads.ts); the ids go as one JSON parameter, so each batch
 * is the same statement whatever its length.
 */
export function* driftsByReconciliationReads(dialect: Dialect, reconciliationIds: readonly number[]): Reads<Map<number, IncidentDrift[]>> {
  const out = new Map<number, IncidentDrift[]>();
  const ids = [...new Set(reconciliationIds)];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = yield* all<PositionRow>(
      `SELECT reconciliation_id AS reconciliationId, symbol, ours, theirs, qty_step AS qtyStep
       FROM reconciliation_positions WHERE reconciliation_id IN (${jsonIntArraySql(dialect, "?")}) AND ${DRIFTING}
       ORDER BY reconciliation_id, ${byteOrder(dialect, "symbol")}`,
      [JSON.stringify(ids.slice(i, i + 500))],
    );
    addDrifts(out, rows);
  }
  return out;
}

type PositionRow = { reconciliationId: number; symbol: string; ours: number; theirs: number; qtyStep: number };

function addDrifts(out: Map<number, IncidentDrift[]>, rows: PositionRow[]): void {
  for (const r of rows) {
    // The schema refuses qty_step <= 0; a journal written around the schema still must not hide a drift.
    const drift = r.qtyStep > 0 ? classifyDrift(r) : "size_drift";
    if (drift === "none") continue;
    const list = out.get(r.reconciliationId) ?? [];
    list.push({ symbol: r.symbol, ours: r.ours, theirs: r.theirs, qtyStep: r.qtyStep, drift });
    out.set(r.reconciliationId, list);
  }
}

/** driftsByReconciliationReads through the engine-neutral handle (lib/db/query.ts), for a screen that reads PostgreSQL too. */
export function readDriftsByReconciliation(params: {
  db: JournalDb | JournalQuery;
  reconciliationIds: readonly number[];
}): Promise<Map<number, IncidentDrift[]>> {
  const q = queryOf(params.db);
  return runReads(q, driftsByReconciliationReads(q.dialect, params.reconciliationIds));
}
