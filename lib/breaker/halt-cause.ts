/**
 * How a halt's cause reads once it is gone. A breaker's reason is written when it trips and never
 * changes; shown as it is after the symbol came back in sync, it reads as a live emergency. The
 * bot card, the bot page and the banner on every page all word it through this one function.
 *
 * A halt made by hand (the console's "Halt now": `changed_by` is `operator:<name>`, the trip names
 * no reconciliation) has no cause that can go away: it reads as who halted it (`operator:ana`, as
 * the breakers page, the audit log and the incident's story name them), when, and why.
 */

import { formatUtc } from "../text/format";

/** What the console writes before an operator's own words in the reason of a hand-made halt. */
export const HAND_HALT_PREFIX = "halted by hand: ";

/**
 * Whether the breaker was last changed by an operator rather than the bot: `operator:<name>`, or
 * `operator` alone where the reader may not see names (lib/auth/actor-names.ts).
 */
export function changedByOperator(changedBy: string | null | undefined): boolean {
  return changedBy === "operator" || (changedBy?.startsWith("operator:") ?? false);
}

/**
 * `halted by hand by operator:ana at 05:31:12 UTC: <reason>`: the operator spelled as every screen
 * spells a person (lib/auth/actor-names.ts), `operator` alone where the reader may not see names.
 */
function handMadeText(p: { reason: string | null; changedBy: string; changedAt: string | null; now?: number | Date }): string {
  const who = p.changedBy;
  // To the second, as every other time the console shows (formatUtc): the date on another day.
  const at = p.changedAt && !Number.isNaN(Date.parse(p.changedAt)) ? formatUtc(p.changedAt, p.now ?? Date.now()) : null;
  let why = p.reason?.trim() ?? "";
  if (why.startsWith(HAND_HALT_PREFIX.trim())) why = why.slice(HAND_HALT_PREFIX.trim().length).trim();
  return `halted by hand by ${who}${at ? ` at ${at}` : ""}: ${why || "no reason recorded"}`;
}

/**
 * How each order a trip's reason names was settled since ("order a1-… unknown: lookup failed"):
 * the state it reached, when, and who or what settled it. `by`: the operator who resolved it by
 * hand or asked the exchange (`operator:ana`, or `operator` where names are hidden), `bot` for the
 * bot's own lookup or status, null when the journal shows no event for it (a row changed by hand).
 */
export interface CauseOrderSettled {
  clientOrderId: string;
  state: string;
  at: string;
  by: string | null;
  /** `hand`: an operator recorded it; `lookup`: the exchange was asked; `bot`: the bot's own status. */
  how: "hand" | "lookup" | "bot";
}

function settledBy(o: CauseOrderSettled): string {
  if (o.by === null) return "";
  if (o.how === "hand") return ` (by ${o.by})`;
  if (o.how === "lookup") return changedByOperator(o.by) ? ` (by ${o.by}, on the exchange)` : " (by the bot's lookup)";
  return changedByOperator(o.by) ? ` (by ${o.by})` : " (by the bot)";
}

/**
 * The halt's cause as the reader should take it now: for a hand-made halt, who made it, when and
 * why; otherwise the recorded reason while its cause may still be there, and "tripped on …; in
 * sync since 03:12:41 UTC" once every symbol that tripped it is back in sync (`inSyncSince`, from the
 * first compared cycle after its last drifting one), or "tripped on order … unknown: …; settled
 * since 03:12:41 UTC: filled (by operator:ana)" once every order it names is settled (`ordersSettled`).
 */
export function haltCauseText(p: {
  reason: string | null;
  inSyncSince: string | null;
  /** Every order the trip's reason names, settled; null (or absent) while any is not, or it names none. */
  ordersSettled?: readonly CauseOrderSettled[] | null;
  changedBy?: string | null;
  changedAt?: string | null;
  /** The reader's clock: a time on another day says its date. */
  now?: number | Date;
}): string {
  if (p.changedBy && changedByOperator(p.changedBy))
    return handMadeText({ reason: p.reason, changedBy: p.changedBy, changedAt: p.changedAt ?? null, now: p.now });
  const reason = p.reason?.trim() ? p.reason.trim() : "no reason recorded";
  const settled = p.ordersSettled && p.ordersSettled.length > 0 ? p.ordersSettled : null;
  if (p.inSyncSince === null && settled === null) return reason;
  // To the second: a trip at 10:00:30 whose symbol was in sync again at 10:00:40 read "since 10:00", as if before the trip.
  const at = (iso: string) => (Number.isNaN(Date.parse(iso)) ? "then" : formatUtc(iso, p.now ?? Date.now()));
  const parts = [`tripped on ${reason}`];
  if (p.inSyncSince !== null) parts.push(`in sync since ${at(p.inSyncSince)}`);
  if (settled !== null) {
    const last = settled.reduce((a, b) => (b.at > a.at ? b : a));
    // One order: its state and who settled it; several: each, by id.
    const each =
      settled.length === 1 ? `${words(last.state)}${settledBy(last)}` : settled.map((o) => `${o.clientOrderId} ${words(o.state)}${settledBy(o)}`).join(", ");
    parts.push(`settled at ${at(last.at)}: ${each}`);
  }
  return parts.join("; ");
}

const words = (state: string) => state.replace(/_/g, " ");
