/**
 * What must hold before a person clears a halt. Pure: the facts are gathered by
 * lib/queries/clear-checklist.ts, and the same evaluation runs beside the button and again inside
 * the action's transaction.
 */
import { formatAge, formatUtc, signedQty } from "../text/format";
import { CLOCK_AHEAD_TOLERANCE_MS } from "./bot-status";

export interface ClearFacts {
  now: Date;
  botId: string;
  breaker: { halted: boolean; version: number; changedAt: string; reason: string | null } | null;
  lastReconciliation: { id: number; at: string; outcome: string } | null;
  /** The lines that drift in the last reconciliation, when it drifted (the first few, by symbol). */
  lastDrifts: { symbol: string; ours: number; theirs: number }[];
  /** Between the bot's last two reconciliations: how often it reconciles; null before its second. */
  cycleMs: number | null;
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
  /** While unmet: what puts it right, in words; null once met. */
  fix: string | null;
  /**
   * The same for someone who may not act (a viewer or a visitor), when the fix is an action they are
   * not offered: it says an operator does it, instead of pointing "below" at a form they are not shown.
   */
  viewerFix?: string;
  /** Where to do it, when that is another page. */
  link?: { href: string; text: string };
  /**
   * The heartbeat item's facts: its age when read (null: none or unreadable) and the limit. Its
   * words count seconds, so a page words them again with heartbeatItem as the age keeps counting.
   */
  beat?: { ageMs: number | null; limitMs: number };
}

const doubtfulList = (botId: string) => ({ href: `/doubtful?bot=${encodeURIComponent(botId)}`, text: "Open the doubtful list" });

/** "every 10 s", or nothing to go by yet. */
/** `every 2.5 s`, `every 15 s`: tenths under ten seconds, where rounding would misstate the pace. */
const every = (cycleMs: number | null) => {
  if (cycleMs === null || !(cycleMs > 0)) return "every cycle";
  const s = cycleMs < 10_000 ? Math.max(0.1, Math.round(cycleMs / 100) / 10) : Math.round(cycleMs / 1000);
  return `every ${s} s`;
};

/** What puts the reconciliation item right, from what the last one said. */
function reconciliationFix(f: ClearFacts, recAfter: boolean): Pick<ChecklistItem, "fix" | "viewerFix" | "link"> {
  const rec = f.lastReconciliation;
  const cadence = `the bot reconciles ${every(f.cycleMs)}`;
  // The cycle that tripped is not newer than the trip, yet waiting for the next one is no fix
  // while its books still disagree.
  if (rec !== null && rec.outcome === "drift") {
    return {
      fix: `Correct the book below, or put the position right on the venue; ${cadence}.`,
      viewerFix: `An operator corrects the book on this page, or the position is put right on the venue; ${cadence}.`,
    };
  }
  if (rec === null || !recAfter) {
    return { fix: `Wait for the bot's next reconciliation (${cadence}); if none comes, the bot process is not running or cannot write: check it.` };
  }
  if (rec.outcome === "skipped") {
    return {
      fix: `Wait: the bot skips reconciling while its orders settle (${cadence}); an order that does not settle is on the doubtful list.`,
      link: doubtfulList(f.botId),
    };
  }
  return { fix: `The bot could not read the exchange's positions: check its connection to the venue; ${cadence}.` };
}

export function clearChecklist(f: ClearFacts): ChecklistItem[] {
  const tripped = f.breaker ? Date.parse(f.breaker.changedAt) : NaN;
  const rec = f.lastReconciliation;
  const recAfter = rec !== null && Date.parse(rec.at) > tripped;
  const beat = f.heartbeatAt === null ? NaN : f.now.getTime() - Date.parse(f.heartbeatAt);
  const recMet = recAfter && rec?.outcome === "clean";
  const drifting = f.lastDrifts.map((d) => `${d.symbol} book ${signedQty(d.ours)} vs exchange ${signedQty(d.theirs)}`).join("; ");
  const ongoing = f.unacknowledgedDrifts.some((d) => d.ongoing);
  return [
    {
      key: "reconciliation",
      label: "A reconciliation newer than the trip, and clean",
      met: recMet,
      detail:
        rec === null
          ? "no reconciliation yet"
          : !recAfter
            ? `the last one (${formatUtc(rec.at, f.now)}) is not newer than the trip${rec.outcome === "drift" && drifting ? `, and it drifted: ${drifting}` : ""}`
            : `the last one, at ${formatUtc(rec.at, f.now)}, was ${rec.outcome}${rec.outcome === "drift" && drifting ? `: ${drifting}` : ""}`,
      ...(recMet ? { fix: null } : reconciliationFix(f, recAfter)),
    },
    {
      key: "doubtful",
      label: "No doubtful orders for this bot",
      met: f.doubtfulOrders === 0,
      detail:
        f.doubtfulOrders === 0
          ? "none"
          : f.doubtfulOrders === 1
            ? "1 doubtful order: resolve it first"
            : `${f.doubtfulOrders} doubtful orders: resolve them first`,
      ...(f.doubtfulOrders === 0
        ? { fix: null }
        : {
            fix: "Settle each on the doubtful list: check it on the exchange, or resolve it by hand.",
            viewerFix: "An operator settles each on the doubtful list: checks it on the exchange, or resolves it by hand.",
            link: doubtfulList(f.botId),
          }),
    },
    {
      key: "drifts",
      label: "Every drift since the trip acknowledged",
      met: f.unacknowledgedDrifts.length === 0,
      detail:
        f.unacknowledgedDrifts.length === 0
          ? "all acknowledged"
          : // Where to acknowledge each is the fix's to say, once.
            `not acknowledged: ${f.unacknowledgedDrifts.map((d) => d.symbol).join(", ")}`,
      ...(f.unacknowledgedDrifts.length === 0
        ? { fix: null }
        : ongoing
          ? {
              fix: "A drift that ended: acknowledge it below. One that still drifts: acknowledge it on the overview, or correct the book below (a correction counts as its acknowledgement).",
              viewerFix:
                "An operator acknowledges a drift that ended on this page, and one that still drifts on the overview or by correcting the book here (a correction counts as its acknowledgement).",
              link: { href: `/?bot=${encodeURIComponent(f.botId)}&drift=1`, text: "Open the overview" },
            }
          : { fix: "Acknowledge each below, saying what you checked.", viewerFix: "An operator acknowledges each on this page, saying what they checked." }),
    },
    heartbeatItem({ ageMs: Number.isNaN(beat) ? null : beat, limitMs: f.heartbeatStaleMs }),
  ];
}

/**
 * The heartbeat item, from the heartbeat's age (null: none, or an unreadable time) and the limit.
 * `notCurrent`: the page has had no answer for a while, and the age counts on in the browser from its
 * last one: the bot may be beating all along, so the item is unmet but blames nobody.
 */
export function heartbeatItem(beat: { ageMs: number | null; limitMs: number }, notCurrent = false): ChecklistItem {
  const { ageMs, limitMs } = beat;
  if (notCurrent)
    return {
      key: "heartbeat",
      label: "A fresh heartbeat",
      met: false,
      detail:
        ageMs === null
          ? "unknown while this page is not updating"
          : `unknown while this page is not updating (${formatAge(Math.max(0, ageMs))} old by its clock)`,
      fix: "This page cannot tell whether the bot still beats, and the bot may be fine: wait until the page updates.",
      beat,
    };
  const met = ageMs !== null && ageMs <= limitMs && ageMs >= -Math.min(CLOCK_AHEAD_TOLERANCE_MS, limitMs);
  return {
    key: "heartbeat",
    label: "A fresh heartbeat",
    // A heartbeat from the future proves nothing about the bot now: its clock is ahead.
    met,
    detail:
      ageMs === null
        ? "no heartbeat"
        : ageMs < 0
          ? `${formatAge(-ageMs)} in the future (bot clock ahead?)`
          : `${formatAge(ageMs)} old (limit ${formatAge(limitMs)})`,
    fix: met
      ? null
      : ageMs !== null && ageMs < 0
        ? "The bot's clock is ahead of the console's: set its clock right (NTP), then wait for its next heartbeat."
        : "The bot process is not running or cannot write to the journal: check it.",
    beat,
  };
}

export const unmet = (items: ChecklistItem[]) => items.filter((i) => !i.met);
