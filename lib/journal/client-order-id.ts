import { createHash } from "node:crypto";
import type { OrderSide } from "./contract";
import { formatQty } from "./qty";

/** The fields of a decision that make its client order id. The clock is deliberately not one. */
export interface Decision {
  strategy: string;
  symbol: string;
  side: OrderSide;
  qty: number;
  /** Time of the decision bar, as stored in `orders.bar`. */
  bar: string;
}

const HASH_HEX_DIGITS = 20;

export class InvalidDecisionError extends Error {
  override name = "InvalidDecisionError";
}

/** `strategy|symbol|side|qty|bar`, exactly the string that is hashed. */
export function decisionSeed(decision: Decision): string {
  const fields = [decision.strategy, decision.symbol, decision.side, formatQty(decision.qty), decision.bar];
  for (const field of fields) {
    // A `|` inside a field would let two different decisions share one seed.
    if (field.length === 0 || field.includes("|")) {
      throw new InvalidDecisionError(`decision field ${JSON.stringify(field)} must be non-empty and free of "|"`);
    }
  }
  return fields.join("|");
}

/**
 * `<prefix>-<first 20 hex digits of sha256(seed)>`. The same decision always gives the same id, so
 * a retry, a restart or a bot in another language lands on the id the exchange already knows.
 */
export function clientOrderId(prefix: string, decision: Decision): string {
  if (!/^[A-Za-z0-9_.:]+$/.test(prefix)) {
    throw new InvalidDecisionError(`client id prefix ${JSON.stringify(prefix)} must be letters, digits, "_", "." or ":"`);
  }
  const digest = createHash("sha256").update(decisionSeed(decision), "utf8").digest("hex");
  return `${prefix}-${digest.slice(0, HASH_HEX_DIGITS)}`;
}

export type ClientOrderIdCheck =
  | { kind: "ok" }
  /** The id does not start with the bot's prefix: placed by hand or by another system. */
  | { kind: "foreign"; expectedPrefix: string }
  /** The prefix matches but the id does not recompute from the stored decision fields. */
  | { kind: "corrupt"; expected: string | null; reason: string };

/** Does a stored order's id belong to this bot and match its own decision fields? */
export function checkClientOrderId(id: string, prefix: string, decision: Decision): ClientOrderIdCheck {
  if (!id.startsWith(`${prefix}-`)) return { kind: "foreign", expectedPrefix: prefix };
  let expected: string;
  try {
    expected = clientOrderId(prefix, decision);
  } catch (error) {
    return { kind: "corrupt", expected: null, reason: (error as Error).message };
  }
  return expected === id ? { kind: "ok" } : { kind: "corrupt", expected, reason: `recomputes to ${expected} from its decision fields` };
}
