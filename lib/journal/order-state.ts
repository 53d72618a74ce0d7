import { SETTLED_STATES, type OrderState } from "./contract";

export type OrderClass = "settled" | "doubtful" | "live";

const settled: ReadonlySet<OrderState> = new Set(SETTLED_STATES);

export function isSettled(state: OrderState): boolean {
  return settled.has(state);
}

/**
 * settled: final on the exchange. doubtful: nobody knows whether the exchange has it, so a person
 * or a lookup must settle it: `unknown` always, and `created`/`sent` left without an update for
 * longer than the grace period (the bot died between the intent and the reply). live: the rest.
 */
export function classifyOrder(
  order: { state: OrderState; updatedAt: string },
  opts: { now: Date; graceMs: number },
): OrderClass {
  if (settled.has(order.state)) return "settled";
  if (order.state === "unknown") return "doubtful";
  if (order.state === "created" || order.state === "sent") {
    const updated = Date.parse(order.updatedAt);
    // An unreadable timestamp is not proof of freshness.
    if (Number.isNaN(updated) || opts.now.getTime() - updated > opts.graceMs) return "doubtful";
  }
  return "live";
}
