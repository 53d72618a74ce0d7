/**
 * What one bot's card says, in one word. "running" is earned, never assumed: the breaker is not
 * halted, the heartbeat is fresh, and the last reconciliation is fresh and clean. Anything the
 * console cannot vouch for is "stale" or "unknown", never green.
 */

export type BotStatus = "halted" | "stale" | "unknown" | "drift" | "running";

export interface BotStatusInput {
  now: Date;
  breaker: { halted: boolean } | null;
  heartbeatAt: string | null;
  lastReconciliation: { at: string; outcome: string } | null;
  heartbeatStaleMs: number;
  reconciliationStaleMs: number;
}

export interface BotStatusResult {
  status: BotStatus;
  /** Why it is not "running", in words for the card. Empty when running. */
  reasons: string[];
  heartbeatAgeMs: number | null;
  reconciliationAgeMs: number | null;
}

const age = (now: Date, at: string | null) => {
  if (at === null) return null;
  const t = Date.parse(at);
  return Number.isNaN(t) ? null : now.getTime() - t;
};

export function botStatus(input: BotStatusInput): BotStatusResult {
  const heartbeatAgeMs = age(input.now, input.heartbeatAt);
  const reconciliationAgeMs = age(input.now, input.lastReconciliation?.at ?? null);
  const reasons: string[] = [];
  let stale = false;
  let unknown = false;

  if (input.breaker === null) {
    unknown = true;
    reasons.push("no breaker row for this bot");
  }
  if (heartbeatAgeMs === null) {
    unknown = true;
    reasons.push(input.heartbeatAt === null ? "no heartbeat yet" : `unreadable heartbeat time ${input.heartbeatAt}`);
  } else if (heartbeatAgeMs > input.heartbeatStaleMs) {
    stale = true;
    reasons.push("heartbeat is stale");
  } else if (heartbeatAgeMs < -input.heartbeatStaleMs) {
    // A heartbeat far in the future means the bot's clock is off: its times cannot be trusted.
    unknown = true;
    reasons.push("heartbeat is in the future (bot clock ahead?)");
  }
  const last = input.lastReconciliation;
  if (last === null) {
    unknown = true;
    reasons.push("no reconciliation yet");
  } else if (reconciliationAgeMs === null) {
    unknown = true;
    reasons.push(`unreadable reconciliation time ${last.at}`);
  } else if (reconciliationAgeMs > input.reconciliationStaleMs) {
    stale = true;
    reasons.push("last reconciliation is stale");
  } else if (last.outcome !== "clean") {
    reasons.push(`last reconciliation: ${last.outcome}`);
  }

  let status: BotStatus;
  if (input.breaker?.halted) status = "halted";
  else if (stale) status = "stale";
  else if (unknown) status = "unknown";
  else if (last?.outcome === "drift") status = "drift";
  else if (last?.outcome === "clean") status = "running";
  else status = "unknown"; // skipped or error: the books were not compared
  return { status, reasons: status === "running" ? [] : reasons, heartbeatAgeMs, reconciliationAgeMs };
}
