/**
 * What one bot's card says, in one word. "running" is earned, never assumed: the breaker is not
 * halted, the heartbeat is fresh, and the last reconciliation is fresh and clean. Anything the
 * console cannot vouch for is "stale" or "unknown", never green.
 */

import { comparedTheBooks } from "../reconcile/current-line";

/** The reasons a bot is stale, as its card lists them (the overview makes the two one alarm). */
export const HEARTBEAT_STALE = "heartbeat is stale";
export const RECONCILIATION_STALE = "last reconciliation is stale";

/**
 * Whether nothing vouches for a bot's journal facts now: its badge is STALE or UNKNOWN, or a halted
 * bot is also one of them (haltedAlso). Its last cycle's outcome, "in sync" above all, is then a
 * fact of that cycle's time, and every screen dates it instead of stating it.
 */
export const factsAreOld = (bot: { status: BotStatus; haltedAlso: "stale" | "unknown" | null }) =>
  bot.status === "stale" || bot.status === "unknown" || bot.haltedAlso !== null;

export type BotStatus = "halted" | "stale" | "unknown" | "drift" | "running";

export interface BotStatusInput {
  now: Date;
  breaker: { halted: boolean } | null;
  heartbeatAt: string | null;
  /** `ordersInFlight` and `error` say why a cycle was skipped or failed, where the journal has them. */
  lastReconciliation: { at: string; outcome: string; ordersInFlight?: number | null; error?: string | null } | null;
  /** The bot's latest cycle that compared the books (`clean` or `drift`); null when it has none. */
  lastCompared: { at: string; outcome: string } | null;
  heartbeatStaleMs: number;
  reconciliationStaleMs: number;
  /**
   * How long ago, on the console's clock, heartbeat_at last changed, at most (from the read before
   * the one that saw it change; lib/queries/heartbeat-motion.ts); null when the console has not
   * seen it change. A heartbeat that keeps moving yet reads old means the bot's clock is behind,
   * not that the bot stopped.
   */
  heartbeatMovedAgoMs?: number | null;
}

/**
 * How far a bot's time may run ahead of the console's before its times are distrusted. Small: a
 * clock ahead by N s hides a dead bot for N s longer than the staleness limit says.
 */
export const CLOCK_AHEAD_TOLERANCE_MS = 10_000;

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

export interface BotStatusResult {
  status: BotStatus;
  /** Why it is not "running", in words for the card. Empty when running. */
  reasons: string[];
  /**
   * Those of `reasons` that say nothing vouches for the bot now (stale, or its times missing or
   * untrusted), in their order: the overview's alarms. Not a skipped or failed cycle's note.
   */
  alarms: string[];
  /**
   * What a halted bot also is: its HALTED badge wins, but a halted bot that stopped writing is dead
   * as well as halted, and a reader must see both at a glance (a try-out saw only HALTED on a bot
   * whose process had stopped). "stale" when its heartbeat or cycles are stale, "unknown" when its
   * times cannot be trusted or are missing; null for a bot that is not halted or is otherwise well.
   */
  haltedAlso: "stale" | "unknown" | null;
  heartbeatAgeMs: number | null;
  reconciliationAgeMs: number | null;
  /** The age of the latest cycle that compared the books (lastCompared); null when none. */
  comparedAgeMs: number | null;
  /**
   * Why the last cycle did not compare the books, while an earlier compared cycle still vouches for
   * them: "2 orders in flight" or the failed read's error (null when the journal gives no why, or
   * the last cycle compared them). The card's Reconciled line says it beside "skipped" or "error";
   * a bullet among the reasons grew the card at every skip and said nothing on a running one.
   */
  notComparedWhy: string | null;
}

const age = (now: Date, at: string | null) => {
  if (at === null) return null;
  const t = Date.parse(at);
  return Number.isNaN(t) ? null : now.getTime() - t;
};

export function botStatus(input: BotStatusInput): BotStatusResult {
  const heartbeatAgeMs = age(input.now, input.heartbeatAt);
  const reconciliationAgeMs = age(input.now, input.lastReconciliation?.at ?? null);
  const comparedAgeMs = age(input.now, input.lastCompared?.at ?? null);
  const reasons: string[] = [];
  const alarms: string[] = [];
  let stale = false;
  let unknown = false;
  const isStale = (reason: string) => {
    stale = true;
    reasons.push(reason);
    alarms.push(reason);
  };
  const isUnknown = (reason: string) => {
    unknown = true;
    reasons.push(reason);
    alarms.push(reason);
  };

  if (input.breaker === null) {
    isUnknown("no breaker row for this bot");
  }
  const aheadTolerance = Math.min(CLOCK_AHEAD_TOLERANCE_MS, input.heartbeatStaleMs);
  const moved = input.heartbeatMovedAgoMs ?? null;
  // How far the heartbeat's time must lag the console's sight of it to be a clock behind, not the
  // time the console took to look (a read a second, at most a few while pages load).
  const behindMargin = Math.min(CLOCK_AHEAD_TOLERANCE_MS, input.heartbeatStaleMs / 2);
  if (heartbeatAgeMs === null) {
    isUnknown(input.heartbeatAt === null ? "no heartbeat yet" : `unreadable heartbeat time ${input.heartbeatAt}`);
  } else if (heartbeatAgeMs > input.heartbeatStaleMs && moved !== null && moved <= input.heartbeatStaleMs && heartbeatAgeMs - moved > behindMargin) {
    // The bot is alive (its heartbeat changed lately) but stamps old times: its clock is behind.
    // A bot that just stopped is not: its last beat was seen a moment after it was written, so its
    // age and the console's "moved" differ by that moment alone (it read "clock behind" for a
    // second or so before STALE, every time a bot stopped).
    isUnknown(`bot clock behind the console's: its heartbeat keeps moving but reads ${seconds(heartbeatAgeMs)} old, so its times cannot be trusted`);
  } else if (heartbeatAgeMs > input.heartbeatStaleMs) {
    isStale(HEARTBEAT_STALE);
  } else if (heartbeatAgeMs < -aheadTolerance) {
    // A heartbeat in the future means the bot's clock is off: its times cannot be trusted, and a
    // dead bot would look alive for as long as its clock is ahead.
    isUnknown(`heartbeat is ${seconds(-heartbeatAgeMs)} in the future: bot clock ahead of the console's, so its times cannot be trusted`);
  }
  const last = input.lastReconciliation;
  // The outcome that says whether the books agree: the latest cycle's, or the latest compared one's.
  let comparedOutcome = last?.outcome ?? null;
  let notComparedWhy: string | null = null;
  if (last === null) {
    isUnknown("no reconciliation yet");
  } else if (reconciliationAgeMs === null) {
    isUnknown(`unreadable reconciliation time ${last.at}`);
  } else if (reconciliationAgeMs > input.reconciliationStaleMs) {
    isStale(RECONCILIATION_STALE);
  } else if (reconciliationAgeMs < -aheadTolerance) {
    isUnknown(`last reconciliation is ${seconds(-reconciliationAgeMs)} in the future: bot clock ahead of the console's`);
  } else if (last.outcome === "skipped" || last.outcome === "error") {
    // The books were not compared this cycle: a fill settling (the bot waits for it) or a failed
    // read. Whether they agree is known as of the latest cycle that compared them, for as long as
    // that cycle is as fresh as any cycle must be: a bot that trades skips a cycle every few
    // minutes, and one failed read is a blip, neither news. Past that, nothing vouches for the books.
    const n = last.ordersInFlight ?? 0;
    const short = last.outcome === "skipped" ? (n > 0 ? `${n} order${n === 1 ? "" : "s"} in flight` : null) : last.error || null;
    const why =
      last.outcome === "skipped"
        ? n > 0
          ? `last reconciliation skipped: ${n} order${n === 1 ? "" : "s"} in flight, so the books were not compared (the bot compares once they settle)`
          : "last reconciliation skipped: the books were not compared"
        : `last reconciliation failed${last.error ? `: ${last.error}` : ""}, so the books were not compared`;
    const compared = input.lastCompared;
    if (compared !== null && comparedAgeMs !== null && comparedAgeMs <= input.reconciliationStaleMs && comparedAgeMs >= -aheadTolerance) {
      notComparedWhy = short;
      comparedOutcome = compared.outcome;
    } else {
      isUnknown(
        compared === null || comparedAgeMs === null
          ? `books never compared: ${why}`
          : comparedAgeMs < 0
            ? `last compared cycle is ${seconds(-comparedAgeMs)} in the future (bot clock ahead of the console's): ${why}`
            : `books not compared for ${seconds(comparedAgeMs)}: ${why}`,
      );
    }
  } else if (!comparedTheBooks(last.outcome)) {
    reasons.push(`last reconciliation: ${last.outcome}`);
  }

  let status: BotStatus;
  if (input.breaker?.halted) status = "halted";
  else if (stale) status = "stale";
  else if (unknown) status = "unknown";
  else if (comparedOutcome === "drift") status = "drift";
  else if (comparedOutcome === "clean") status = "running";
  else status = "unknown"; // an outcome the contract does not name
  const haltedAlso = status !== "halted" ? null : stale ? "stale" : unknown ? "unknown" : null;
  return {
    status,
    reasons: status === "running" ? [] : reasons,
    alarms: status === "running" ? [] : alarms,
    haltedAlso,
    heartbeatAgeMs,
    reconciliationAgeMs,
    comparedAgeMs,
    notComparedWhy,
  };
}
