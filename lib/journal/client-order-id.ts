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
 * How the prefix meets the digest (docs/journal.md, "The client order id"): `dash`,
 * `<prefix>-<digest>`, or `compact`, `<prefix><digest>`, for a venue whose client ids are letters
 * and digits only (OKX's clOrdId: 1 to 32 of them), with a prefix of letters and digits, at most 12.
 */
export type IdForm = "dash" | "compact";

/** The longest compact prefix: with the 20-digit digest, OKX's 32 characters. */
export const COMPACT_PREFIX_MAX = 12;

/**
 * `<prefix>-<first 20 hex digits of sha256(seed)>` (or without the `-`, `compact`). The same
 * decision always gives the same id, so a retry, a restart or a bot in another language lands on
 * the id the exchange already knows.
 */
export function clientOrderId(prefix: string, decision: Decision, form: IdForm = "dash"): string {
  if (form === "compact" ? !new RegExp(`^[A-Za-z0-9]{1,${COMPACT_PREFIX_MAX}}$`).test(prefix) : !/^[A-Za-z0-9_.:]+$/.test(prefix)) {
    throw new InvalidDecisionError(
      form === "compact"
        ? `client id prefix ${JSON.stringify(prefix)} must be 1 to ${COMPACT_PREFIX_MAX} letters or digits for the compact form (OKX takes 32 letters and digits)`
        : `client id prefix ${JSON.stringify(prefix)} must be letters, digits, "_", "." or ":"`,
    );
  }
  const digest = createHash("sha256").update(decisionSeed(decision), "utf8").digest("hex");
  return `${prefix}${form === "compact" ? "" : "-"}${digest.slice(0, HASH_HEX_DIGITS)}`;
}

export type ClientOrderIdCheck =
  | { kind: "ok" }
  /** The id does not start with the bot's prefix: placed by hand or by another system. */
  | { kind: "foreign"; expectedPrefix: string }
  /** The prefix matches but the id does not recompute from the stored decision fields. */
  | { kind: "corrupt"; expected: string | null; reason: string };

/**
 * Does a stored order's id belong to this bot and match its own decision fields? Either form is the
 * bot's: `<prefix>-…`, or the prefix followed by exactly 20 hex digits (compact); anything else
 * after the prefix was placed by hand or by another system.
 */
export function checkClientOrderId(id: string, prefix: string, decision: Decision): ClientOrderIdCheck {
  const form: IdForm | null = id.startsWith(`${prefix}-`) ? "dash" : id.startsWith(prefix) && /^[0-9a-f]{20}$/.test(id.slice(prefix.length)) ? "compact" : null;
  if (form === null) return { kind: "foreign", expectedPrefix: prefix };
  let expected: string;
  try {
    expected = clientOrderId(prefix, decision, form);
  } catch (error) {
    return { kind: "corrupt", expected: null, reason: (error as Error).message };
  }
  return expected === id ? { kind: "ok" } : { kind: "corrupt", expected, reason: `recomputes to ${expected} from its decision fields` };
}
