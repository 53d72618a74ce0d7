/**
 * The reference for latest_positions: a replay of every compared cycle in the journal, in id order.
 * A symbol a compared cycle leaves out was flat on both sides there (docs/journal.md), which breaks
 * a drift run.
 */
import type Database from "better-sqlite3";

type Row = { symbol: string; ours: number; theirs: number; step: number };

const driftOf = (l: Row) => (Math.abs(l.ours - l.theirs) < l.step / 2 ? "none" : Math.abs(l.ours) < l.step / 2 ? "unknown_position" : "size_drift");

export function fullScan(db: Database.Database) {
  const recs = db.prepare(`SELECT id, bot_id AS bot, at FROM reconciliations WHERE outcome IN ('clean','drift') ORDER BY id`).iterate() as Iterable<{
    id: number;
    bot: string;
    at: string;
  }>;
  const lines = db.prepare(`SELECT symbol, ours, theirs, qty_step AS step FROM reconciliation_positions WHERE reconciliation_id = ?`);
  const state = new Map<
    string,
    { reconciliationId: number; at: string; ours: number; theirs: number; drift: string; driftSince: string | null; runStart: string | null }
  >();
  for (const r of recs) {
    const mentioned = new Set<string>();
    for (const l of lines.all(r.id) as Row[]) {
      const key = `${r.bot}/${l.symbol}`;
      mentioned.add(key);
      const prev = state.get(key);
      const drift = driftOf(l);
      const runStart = drift === "none" ? null : (prev?.runStart ?? r.at);
      state.set(key, { reconciliationId: r.id, at: r.at, ours: l.ours, theirs: l.theirs, drift, driftSince: runStart, runStart });
    }
    for (const [key, s] of state) if (key.startsWith(`${r.bot}/`) && !mentioned.has(key)) s.runStart = null;
  }
  return [...state.entries()]
    .map(([key, s]) => {
      const [bot, symbol] = key.split("/") as [string, string];
      return { botId: bot, symbol, reconciliationId: s.reconciliationId, at: s.at, ours: s.ours, theirs: s.theirs, drift: s.drift, driftSince: s.driftSince };
    })
    .sort((a, b) => (a.botId + a.symbol).localeCompare(b.botId + b.symbol));
}

/** What the trigger kept, in the same shape and order as fullScan. */
export function latestPositions(db: Database.Database) {
  return db
    .prepare(
      `SELECT bot_id AS botId, symbol, reconciliation_id AS reconciliationId, at, ours, theirs, drift, drift_since AS driftSince
       FROM latest_positions ORDER BY bot_id || symbol`,
    )
    .all();
}
