/**
 * One line of the incident timeline, whatever table it came from, and the words it is read in.
 * Pure: the query builds these from rows, the page, the CSV and the JSON export show them as they
 * are, so the morning-after reader and the spreadsheet see the same sentence.
 */
import { mayName } from "../auth/actor-names";
import type { DriftClass } from "../reconcile/diff";
import { actionLabel } from "../text/audit-detail";
import { formatNumber, signedQty } from "../text/format";
import { asSentence } from "../text/sentence";

/** The strategy name of a bot's close of a position it never opened (docs/journal.md). */
const RECONCILE_STRATEGY = "reconcile";

export type IncidentSource = "order" | "reconciliation" | "breaker" | "audit";
/** emergency: a trip, an unknown position or an unknown order. warning: something failed or drifted. */
export type IncidentSeverity = "emergency" | "warning" | "notice" | "info";

export interface IncidentDrift {
  symbol: string;
  ours: number;
  theirs: number;
  qtyStep: number;
  drift: Exclude<DriftClass, "none">;
}

export interface IncidentEvent {
  /** `<source>-<row id>`: stable, and the anchor of the event on the page. */
  id: string;
  at: string;
  source: IncidentSource;
  /** order_events.kind, reconciliations.outcome, breaker_events.kind, or audit_log.action. */
  kind: string;
  botId: string | null;
  actor: string;
  /** The actor is a person (`operator:<name>`), or it is an audit entry (a person's attempt, signed in or not). */
  operator: boolean;
  severity: IncidentSeverity;
  summary: string;
  symbol: string | null;
  side: string | null;
  qty: number | null;
  /** The order's strategy; `reconcile` for the bot's close of a position it never opened. */
  strategy: string | null;
  clientOrderId: string | null;
  /** The cycle itself, or the cycle that caused a trip. */
  reconciliationId: number | null;
  /** The breaker's reason, a reconciliation's error, or an audit refusal's code. */
  reason: string | null;
  /** What an audited action acted on (an order id, `bot/symbol`, a bot id); null for other sources. */
  target: string | null;
  /** An audited action's outcome: `applied` or `refused`; null for other sources. */
  outcome: string | null;
  /** The drifting symbols of a drift cycle; empty otherwise. */
  drifts: IncidentDrift[];
  /** order_events.detail or audit_log.detail, parsed (the raw text when it is not JSON); null for other sources. */
  detail: unknown;
  /** With several journals: the one that holds the event (its id is then `<journal>/<source>-<row id>`). Absent with one. */
  journal?: string;
}

/** An event of one of several journals: its journal named, and its id made unique across them. */
export const inJournal = (e: IncidentEvent, journal: string): IncidentEvent => ({ ...e, id: `${journal}/${e.id}`, journal });

/** The row id of an event's source row (the number after the last `-` of its id). */
export const rowIdOf = (e: IncidentEvent): number => Number(e.id.slice(e.id.lastIndexOf("-") + 1));

/** A merged row, before words: the common columns of every source's SELECT. */
export interface IncidentRow {
  source: IncidentSource;
  rowId: number;
  at: string;
  botId: string | null;
  kind: string;
  actor: string;
  clientOrderId: string | null;
  symbol: string | null;
  side: string | null;
  qty: number | null;
  strategy: string | null;
  detail: string | null;
  reason: string | null;
  reconciliationId: number | null;
  ordersInFlight: number | null;
  target: string | null;
  outcome: string | null;
}

/** `operator:<name>`, or `operator` alone where the reader may not see names. */
export const isOperator = (actor: string) => actor === "operator" || actor.startsWith("operator:");

function parseDetail(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const field = (detail: unknown, key: string): string | null => {
  if (typeof detail !== "object" || detail === null) return null;
  const v = (detail as Record<string, unknown>)[key];
  return typeof v === "string" || typeof v === "number" ? String(v) : null;
};

const driftWords = (d: IncidentDrift) =>
  `${d.symbol} ours ${signedQty(d.ours)} / theirs ${signedQty(d.theirs)} (${d.drift === "unknown_position" ? "UNKNOWN POSITION" : "size drift"})`;

function orderWords(row: IncidentRow, detail: unknown): { summary: string; severity: IncidentSeverity } {
  const order = row.symbol
    ? `${row.side ?? "?"} ${row.qty === null ? "?" : formatNumber(row.qty)} ${row.symbol}`
    : `order ${row.clientOrderId ?? "?"} (not in the orders table)`;
  const what = row.strategy === RECONCILE_STRATEGY ? `the reduce-only close (${order})` : order;
  const status = field(detail, "status");
  const error = field(detail, "error");
  const attempt = field(detail, "attempt");
  const filled = field(detail, "filledQty");
  const price = field(detail, "avgPrice");
  const fill =
    filled !== null && Number(filled) > 0 ? `, ${formatNumber(Number(filled))} filled${price !== null ? ` at ${formatNumber(Number(price))}` : ""}` : "";
  const during = field(detail, "during");
  if (isOperator(row.actor)) {
    const note = field(detail, "action") ?? field(detail, "note") ?? field(detail, "reason");
    // Spelled as the audit log and every other line spell an operator: `operator:ana`.
    const who = row.actor.startsWith("operator:") ? row.actor : "an operator";
    const tail = note ? `: ${note}` : "";
    // What the operator settled it as, with the price: a price typed wrong is found from this line.
    if (field(detail, "resolvedBy") === "hand") {
      const confirmed = (detail as { priceConfirmed?: unknown }).priceConfirmed === true ? " (price confirmed, though far from the last mark)" : "";
      return { summary: `${who} resolved ${what} by hand as ${status ?? "an unnamed state"}${fill}${confirmed}${tail}`, severity: "notice" };
    }
    if (row.kind === "lookup_found") return { summary: `${who} checked ${what} on the exchange: ${status ?? "no status"}${fill}${tail}`, severity: "notice" };
    if (row.kind === "lookup_absent") return { summary: `${who} checked ${what} on the exchange: it never got it${tail}`, severity: "notice" };
    return { summary: `${who} acted on ${what}${tail}`, severity: "notice" };
  }
  switch (row.kind) {
    case "intent":
      return { summary: `intent written: ${what}`, severity: "info" };
    case "send":
      // The bot closing a position it never opened is what put the symbol back in sync: never routine.
      return { summary: `${what} sent; the exchange says ${status ?? "nothing"}${fill}`, severity: row.strategy === RECONCILE_STRATEGY ? "notice" : "info" };
    case "timeout":
      return { summary: `no reply to ${what}${attempt ? ` (attempt ${attempt})` : ""}: ${error ?? "timed out"}`, severity: "warning" };
    // A lookup settles an order in doubt (a send with no reply, or one the bot found recorded but
    // not sent): the line a reviewer looks for after a timeout, so never folded into the routine.
    case "lookup_found":
      return { summary: `lookup found ${what} on the exchange: ${status ?? "no status"}${fill}`, severity: "notice" };
    case "lookup_absent":
      // Not "never got": the bot sends it again under the same id, and a later lookup may well find
      // it filled (a try-out read the two lines of one order as a contradiction).
      return {
        summary: `lookup found no ${what} on the exchange${during ? ` (during ${during})` : ""}: it may be sent again under the same id`,
        severity: "notice",
      };
    case "status":
      if (status === "unknown")
        return {
          summary: `${what} is UNKNOWN: nobody can say whether the exchange has it${field(detail, "why") ? ` (${field(detail, "why")})` : ""}`,
          severity: "emergency",
        };
      if (status === "rejected") return { summary: `${what} rejected${field(detail, "reason") ? `: ${field(detail, "reason")}` : ""}`, severity: "warning" };
      return { summary: `${what} is now ${status ?? "in an unnamed state"}${fill}`, severity: "info" };
    case "error":
      return { summary: `error on ${what}${during ? ` during ${during}` : ""}: ${error ?? "no message"}`, severity: "warning" };
    default:
      return { summary: `${row.kind} on ${what}`, severity: "info" };
  }
}

function reconciliationWords(row: IncidentRow, drifts: IncidentDrift[]): { summary: string; severity: IncidentSeverity } {
  switch (row.kind) {
    case "clean":
      return { summary: "reconciled: the books agree", severity: "info" };
    case "skipped": {
      const n = row.ordersInFlight ?? 0;
      return { summary: `reconciliation skipped: ${n} order${n === 1 ? "" : "s"} in flight`, severity: "info" };
    }
    case "error":
      return { summary: `reconciliation failed: ${row.reason ?? "no error recorded"}`, severity: "warning" };
    case "drift": {
      const unknown = drifts.some((d) => d.drift === "unknown_position");
      const list = drifts.length > 0 ? drifts.map(driftWords).join("; ") : "no drifting symbol recorded";
      return { summary: `DRIFT on ${drifts.length} symbol${drifts.length === 1 ? "" : "s"}: ${list}`, severity: unknown ? "emergency" : "warning" };
    }
    default:
      return { summary: `reconciliation ${row.kind}`, severity: "info" };
  }
}

/**
 * An audit entry in the audit page's words: the action's one label (actionLabel) and its outcome,
 * "operator:ana: Resolve a doubtful order by hand on a1-…: refused (invalid): <why>". A refusal
 * ends with the sentence the operator was shown (its detail's `message`) and, for a refused form,
 * what each field needed (its `fieldErrors`), so the story and the post-mortem say why without the
 * audit page. The raw action name stays the event's `kind`, for tools.
 */
function auditWords(row: IncidentRow, detail: unknown): { summary: string; severity: IncidentSeverity } {
  const action = actionLabel(row.kind);
  const on = row.target ? ` on ${row.target}` : "";
  // The refusal's code after it ("refused (conflict)"), but not "refused (refused)".
  const code = row.reason && row.reason !== "refused" ? ` (${row.reason})` : "";
  if (row.outcome === "refused") {
    // A refused form's message is general ("Some fields need fixing"): what each field needed is in its fieldErrors.
    const errors = typeof detail === "object" && detail !== null ? (detail as { fieldErrors?: unknown }).fieldErrors : undefined;
    const fixes =
      typeof errors === "object" && errors !== null
        ? Object.values(errors).flatMap((m) => (Array.isArray(m) ? m.filter((x) => typeof x === "string") : []))
        : [];
    const why = [field(detail, "message"), fixes.length > 0 ? asSentence(`What to fix: ${fixes.join("; ")}`) : null].filter((t) => t).join(" ");
    return { summary: `${row.actor}: ${action}${on}: refused${code}${why ? `: ${why}` : ""}`, severity: "warning" };
  }
  return { summary: `${row.actor}: ${action}${on}: ${row.outcome ?? "no outcome recorded"}`, severity: "notice" };
}

function breakerWords(row: IncidentRow): { summary: string; severity: IncidentSeverity } {
  if (row.kind === "trip") {
    const cause = row.reconciliationId !== null ? ` (reconciliation #${row.reconciliationId})` : "";
    return { summary: `BREAKER TRIPPED by ${row.actor}: ${row.reason ?? "no reason"}${cause}`, severity: "emergency" };
  }
  return { summary: `breaker cleared by ${row.actor}: ${row.reason ?? "no reason"}`, severity: "notice" };
}

export function toIncidentEvent(row: IncidentRow, drifts: IncidentDrift[] = []): IncidentEvent {
  const detail = row.source === "order" || row.source === "audit" ? parseDetail(row.detail) : null;
  const words =
    row.source === "order"
      ? orderWords(row, detail)
      : row.source === "reconciliation"
        ? reconciliationWords(row, drifts)
        : row.source === "audit"
          ? auditWords(row, detail)
          : breakerWords(row);
  return {
    id: `${row.source}-${row.rowId}`,
    at: row.at,
    source: row.source,
    kind: row.kind,
    botId: row.botId,
    actor: row.actor,
    operator: row.source === "audit" || isOperator(row.actor),
    severity: words.severity,
    summary: words.summary,
    symbol: row.symbol,
    side: row.side,
    qty: row.qty,
    strategy: row.strategy,
    clientOrderId: row.clientOrderId,
    reconciliationId: row.reconciliationId,
    reason: row.reason,
    target: row.target,
    outcome: row.outcome,
    drifts: row.source === "reconciliation" ? drifts : [],
    detail,
  };
}

/**
 * Whether a row's event could name anyone, so that it must be searched for names (withoutNames)
 * before a reader who is not signed in sees it: whether any of the row's texts, as the journal holds
 * them (`journalActor`: its actor before it was turned into its role), or its drifts' symbols
 * could hold one. An
 * event's words join those texts with constant words, none of which can complete a name (a role's
 * colon is always followed by a space), so a row that holds none gives an event that holds none:
 * a busy hour's 6,500 events of a bot are then not walked string by string (docs/performance.md).
 */
export function rowMayName(row: IncidentRow, drifts: readonly IncidentDrift[], journalActor = row.actor): boolean {
  const text = (v: string | null) => v !== null && mayName(v);
  if (
    mayName(journalActor) ||
    text(row.botId) ||
    mayName(row.kind) ||
    text(row.clientOrderId) ||
    text(row.symbol) ||
    text(row.side) ||
    text(row.strategy) ||
    (row.detail !== null && mayName(row.detail, true)) ||
    text(row.reason) ||
    text(row.target) ||
    text(row.outcome)
  )
    return true;
  return drifts.some((d) => mayName(d.symbol));
}
