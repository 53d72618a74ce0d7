/**
 * Which doubtful orders would account for a drift if the exchange had filled them. A lost reply
 * whose order did fill leaves the exchange holding exactly the order's unfilled remainder beyond
 * the bot's book (SOLUSDT +98 against 0 for an unknown buy of 98): naming the order on the drift,
 * and the drift on the order, shows the on-call person one incident instead of two, and that
 * settling the order is the first step. Plain numbers in, plain data out; the screens and the
 * tests share it.
 */
import type { OrderSide } from "../journal/contract";
import { driftTolerance, isDrift } from "./diff";

export interface ExplainingOrder {
  clientOrderId: string;
  side: OrderSide;
  qty: number;
  /** What the bot's book already counts of it. */
  filledQty: number;
}

export interface DriftExplanation {
  /** The orders that, filled, close the gap: as few as possible, in the order given. */
  clientOrderIds: string[];
  /** Their signed unfilled quantity: what the exchange holds beyond the book if they filled. */
  ifFilled: number;
}

/**
 * Orders tried together at most (2^10 subsets); a symbol with more doubtful orders than this is
 * tried one order at a time, since that many lost replies on one symbol is the incident anyway.
 */
const MAX_COMBINED = 10;

/** What the exchange holds beyond the book if the order filled: the remainder, signed by its side. */
export function ifFilled(order: Pick<ExplainingOrder, "side" | "qty" | "filledQty">): number {
  const rest = Math.max(0, order.qty - order.filledQty);
  return order.side === "buy" ? rest : -rest;
}

/**
 * The smallest set of `orders` whose fills would explain the drift of `line`: their signed
 * remainders sum to theirs − ours within the drift tolerance (half a step, the same rule that
 * calls the line a drift, so float dust such as 0.1 + 0.2 cannot hide a match). Null when the line
 * is not drifting or no set matches. Among sets of one size, the one of the earliest orders wins.
 */
export function explainDrift(line: { ours: number; theirs: number; qtyStep: number }, orders: readonly ExplainingOrder[]): DriftExplanation | null {
  if (!(line.qtyStep > 0) || !isDrift(line)) return null;
  const gap = line.theirs - line.ours;
  const tolerance = driftTolerance(line.qtyStep);
  const candidates = orders.map((o) => ({ id: o.clientOrderId, size: ifFilled(o) })).filter((c) => Math.abs(c.size) >= tolerance);
  const matches = (size: number) => Math.abs(size - gap) < tolerance;
  if (candidates.length > MAX_COMBINED) {
    const one = candidates.find((c) => matches(c.size));
    return one ? { clientOrderIds: [one.id], ifFilled: one.size } : null;
  }
  let best: { mask: number; count: number; size: number } | null = null;
  for (let mask = 1; mask < 1 << candidates.length; mask++) {
    let size = 0;
    let count = 0;
    for (let i = 0; i < candidates.length; i++) {
      if (mask & (1 << i)) {
        size += candidates[i]!.size;
        count++;
      }
    }
    if (!matches(size)) continue;
    if (!best || count < best.count || (count === best.count && earlier(mask, best.mask))) best = { mask, count, size };
  }
  if (!best) return null;
  const chosen = candidates.filter((_, i) => best.mask & (1 << i));
  return { clientOrderIds: chosen.map((c) => c.id), ifFilled: roundToStep(best.size, line.qtyStep) };
}

/** Of two sets of the same size, the one whose first differing member comes first in the list. */
function earlier(a: number, b: number): boolean {
  const differ = a ^ b;
  const lowest = differ & -differ;
  return (a & lowest) !== 0;
}

/** The sum shown to a person: whole steps, without the float dust of the addition. */
function roundToStep(value: number, step: number): number {
  let decimals = 0;
  while (decimals < 12 && Math.abs(Math.round(step * 10 ** decimals) - step * 10 ** decimals) > 1e-9) decimals++;
  return Number((Math.round(value / step) * step).toFixed(decimals)) + 0; // + 0 turns -0 into 0
}
