import "server-only";
import { sql } from "drizzle-orm";
import type { JournalDb } from "../db/console";
import { queryOf, type JournalQuery } from "../db/query";
import type { IncidentDrift } from "../incidents/events";
import { classifyDrift } from "../reconcile/diff";

/**
 * The drifting symbols of the given cycles, read through the positions' primary key in batches:
 * what a drift cycle or a trip it caused is about. Cycles without drift are absent from the map.
 */
export function getDriftsByReconciliation(params: { db: JournalDb; reconciliationIds: readonly number[] }): Map<number, IncidentDrift[]> {
  const out = new Map<number, IncidentDrift[]>();
  const ids = [...new Set(params.reconciliationIds)];
  for (let i = 0; i < ids.length; i += 500) {
    const batch = ids.slice(i, i + 500);
    const rows = params.db.all<{ reconciliationId: number; symbol: string; ours: number; theirs: number; qtyStep: number }>(
      sql`SELECT reconciliation_id AS reconciliationId, symbol, ours, theirs, qty_step AS qtyStep
          FROM reconciliation_positions WHERE reconciliation_id IN (${sql.join(
            batch.map((id) => sql`${id}`),
            sql`, `,
          )})
          ORDER BY reconciliation_id, symbol`,
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

/** getDriftsByReconciliation through the engine-neutral handle (lib/db/query.ts), for a screen that reads PostgreSQL too. */
export async function readDriftsByReconciliation(params: {
  db: JournalDb | JournalQuery;
  reconciliationIds: readonly number[];
}): Promise<Map<number, IncidentDrift[]>> {
  const q = queryOf(params.db);
  const out = new Map<number, IncidentDrift[]>();
  const ids = [...new Set(params.reconciliationIds)];
  for (let i = 0; i < ids.length; i += 500) {
    const batch = ids.slice(i, i + 500);
    addDrifts(
      out,
      await q.all<PositionRow>(
        `SELECT reconciliation_id AS reconciliationId, symbol, ours, theirs, qty_step AS qtyStep
         FROM reconciliation_positions WHERE reconciliation_id IN (${batch.map(() => "?").join(", ")})
         ORDER BY reconciliation_id, symbol`,
        batch,
      ),
    );
  }
  return out;
}
