/**
 * The journal contract v1 (docs/journal.md) as constants. Plain TypeScript: bots, the console and
 * the migrations all read their vocabulary from here, so a typo cannot make two of them disagree.
 */

export const ORDER_SIDES = ["buy", "sell"] as const;
export type OrderSide = (typeof ORDER_SIDES)[number];

export const ORDER_STATES = ["created", "sent", "unknown", "open", "partially_filled", "filled", "canceled", "rejected", "absent"] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** Final states: nothing more will happen to the order on the exchange. */
export const SETTLED_STATES = ["filled", "canceled", "rejected", "absent"] as const satisfies readonly OrderState[];

export const ORDER_EVENT_KINDS = ["intent", "send", "timeout", "lookup_found", "lookup_absent", "status", "error", "operator"] as const;

export const RECONCILIATION_OUTCOMES = ["clean", "drift", "skipped", "error"] as const;
export type ReconciliationOutcome = (typeof RECONCILIATION_OUTCOMES)[number];

export const BREAKER_EVENT_KINDS = ["trip", "clear"] as const;
export type BreakerEventKind = (typeof BREAKER_EVENT_KINDS)[number];

/** `bot` or `operator:<name>`. */
export type Actor = "bot" | `operator:${string}`;
