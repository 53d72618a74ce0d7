/**
 * What must hold before a person clears a halt. Pure: the facts are gathered by
 * lib/queries/clear-checklist.ts, and the same evaluation runs beside the button and again inside
 * the action's transaction.
 */
import { formatUtc } from "../text/format";
import { CLOCK_AHEAD_TOLERANCE_MS } from "./bot-status";

export interface ClearFacts {
  now: Date;
  breaker: { halted: boolean; version: number; changedAt: string; reason: string | null } | null;
  lastReconciliation: { id: number; at: string; outcome: string } | null;
  heartbeatAt: string | null;
  heartbeatStaleMs: number;
  doubtfulOrders: number;
  /**
   * Symbols that drifted since the trip with no acknowledgement made on a cycle since the trip,
   * each with its latest drifting cycle (what an acknowledgement of a drift that ended refers to).
   */
  unacknowledgedDrifts: UnacknowledgedDrift[];
}

export interface UnacknowledgedDrift {
  symbol: string;
  drift: "size_drift" | "unknown_position";
  /** The latest cycle since the trip in which it drifted, and the sizes then. */
  reconciliationId: number;
  at: string;
  ours: number;
  theirs: number;
  /** Cycles since the trip in which it drifted. */
  cycles: number;
  /** It drifts in the bot's latest cycle: acknowledge it on the overview, as any live drift. */
  ongoing: boolean;
}

export interface ChecklistItem {
  key: "reconciliation" | "doubtful" | "drifts" | "heartbeat";
  label: string;
  met: boolean;
  detail: string;
}

export function clearChecklist(f: ClearFacts): ChecklistItem[] {
  const tripped = f.breaker ? Date.parse(f.breaker.changedAt) : NaN;
  const rec = f.lastReconciliation;
  const recAfter = rec !== null && Date.parse(rec.at) > tripped;
  const beat = f.heartbeatAt === null ? NaN : f.now.getTime() - Date.parse(f.heartbeatAt);
  return [
    {
      key: "reconciliation",
      label: "A reconciliation newer than the trip, and clean",
      met: recAfter && rec?.outcome === "clean",
      detail:
        rec === null
          ? "no reconciliation yet"
          : !recAfter
            ? `the last one (${formatUtc(rec.at)}) is not newer than the trip`
            : `the last one, at ${formatUtc(rec.at)}, was ${rec.outcome}`,
    },
    {
      key: "doubtful",
      label: "No doubtful orders for this bot",
      met: f.doubtfulOrders === 0,
      detail: f.doubtfulOrders === 0 ? "none" : `${f.doubtfulOrders} doubtful order${f.doubtfulOrders === 1 ? "" : "s"}: resolve them first`,
    },
    {
      key: "drifts",
      label: "Every drift since the trip acknowledged",
      met: f.unacknowledgedDrifts.length === 0,
      detail:
        f.unacknowledgedDrifts.length === 0
          ? "all acknowledged"
          : `not acknowledged: ${f.unacknowledgedDrifts.map((d) => d.symbol).join(", ")} (each can be acknowledged below, or on the overview while it drifts)`,
    },
    {
      key: "heartbeat",
      label: "A fresh heartbeat",
      // A heartbeat from the future proves nothing about the bot now: its clock is ahead.
      met: !Number.isNaN(beat) && beat <= f.heartbeatStaleMs && beat >= -Math.min(CLOCK_AHEAD_TOLERANCE_MS, f.heartbeatStaleMs),
      detail: Number.isNaN(beat)
        ? "no heartbeat"
        : beat < 0
          ? `${Math.round(-beat / 1000)} s in the future (bot clock ahead?)`
          : `${Math.round(beat / 1000)} s old (limit ${Math.round(f.heartbeatStaleMs / 1000)} s)`,
    },
  ];
}

export const unmet = (items: ChecklistItem[]) => items.filter((i) => !i.met);
