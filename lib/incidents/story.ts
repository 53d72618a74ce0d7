/**
 * An incident as a thing: one trip of a bot's breaker and the clear that ended it (or none yet),
 * told from the journal's facts. Pure: the query gathers the facts with indexed reads, this module
 * says what caused the halt, which order was behind it, who did what with which note, and how long
 * each step took, so the page, the list and the Markdown post-mortem tell the same story.
 */
import { SETTLED_STATES } from "../journal/contract";
import { HAND_HALT_PREFIX } from "../breaker/halt-cause";
import { actionLabel } from "../text/audit-detail";
import { formatNumber, signedQty } from "../text/format";
import { isOperator, type IncidentDrift } from "./events";
import { HOUR_MS, MINUTE_MS, ceilToMinute, floorToMinute } from "../url-state/incidents";
import { MAX_CUSTOM_MS } from "../url-state/symbol";

/**
 * Applied audit actions that answer a halt a bot made: the first of them is the "first operator
 * action". A refused attempt changed nothing. A halt made by hand is itself its operator's first
 * action (HAND_HALT_ACTION, or the trip alone when another tool wrote it): tellIncident and
 * listItem count it from the trip.
 */
export const RESPONSE_ACTIONS = [
  "acknowledge_drift",
  "resolve_order_lookup",
  "resolve_order_manual",
  "correct_book",
  "request_clear_halt",
  "approve_clear_halt",
  "clear_halt",
] as const;

/** The audit log's name for "Halt now" (lib/actions/halt-bot.ts). */
const HAND_HALT_ACTION = "halt_bot";
const CLEAR_ACTIONS = new Set(["clear_halt", "approve_clear_halt"]);
const RESPONSES = new Set<string>(RESPONSE_ACTIONS);
const SETTLED = new Set<string>(SETTLED_STATES);

export interface TripFact {
  id: number;
  botId: string;
  at: string;
  reason: string;
  /** `bot`, or `operator:<name>` for a hand-made halt ("Halt now"), whose reconciliationId is null. */
  actor: string;
  reconciliationId: number | null;
}

export interface ClearFact {
  id: number;
  at: string;
  reason: string;
  actor: string;
}

export interface OrderEventFact {
  id: number;
  at: string;
  kind: string;
  actor: string;
  /** order_events.detail as written (JSON text). */
  detail: string | null;
}

export interface OrderFact {
  clientOrderId: string;
  symbol: string;
  side: string;
  qty: number;
  state: string;
  /** Its events, oldest first. */
  events: OrderEventFact[];
}

export interface AuditFact {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string;
  outcome: string;
  /** audit_log.detail as written (JSON text). */
  detail: string;
}

export interface CorrectionFact {
  id: number;
  at: string;
  actor: string;
  symbol: string;
  kind: string;
  ours: number;
  theirs: number;
  delta: number;
  note: string;
}

/** What the journal holds about one incident, gathered by lib/queries/incident-story.ts. */
export interface IncidentFacts {
  trip: TripFact;
  clear: ClearFact | null;
  /** The drifting lines of the trip's reconciliation (none for a hand-made halt or a lost order). */
  drifts: IncidentDrift[];
  /** The bot's orders that may be behind the trip: named in its reason, or doubtful on its symbol around it. */
  orders: OrderFact[];
  /** Audit entries for this bot (its id, `bot/symbol`, or one of its orders) from the trip to the clear. */
  audit: AuditFact[];
  /** Book corrections of this bot from the trip to the clear. */
  corrections: CorrectionFact[];
}

export interface IncidentStep {
  /** `audit-<id>`, `order-<id>` or `breaker-<id>`. */
  id: string;
  at: string;
  actor: string;
  /** What they did, in words: "acknowledged the drift on ETHUSDT". */
  what: string;
  /** Their note (an acknowledgement's, a resolution's, a correction's, a clear's reason) in full. */
  note: string | null;
  /** For the chart's marks: what kind of step it was. */
  mark: "halt" | "acknowledge" | "correction" | "clear" | "resolve" | "other";
  /** An operator's action on the halt (its own halt by hand, RESPONSE_ACTIONS, an operator's order event, a clear): the first such is the first action. */
  answers: boolean;
}

export interface IncidentOrder {
  clientOrderId: string;
  symbol: string;
  side: string;
  qty: number;
  /** Its state now. */
  state: string;
  /** When it became doubtful: its first timeout or `unknown` status; null if the journal shows neither. */
  doubtfulAt: string | null;
  settledAt: string | null;
  settledBy: string | null;
  /** The settled state it reached (`filled`, `absent`, …). */
  settledAs: string | null;
  /** The average price recorded when it settled (a lookup's, or the one an operator typed); null when none was. */
  settledPrice: number | null;
}

export interface IncidentStory {
  /** The trip's breaker_events id: the incident's id in URLs. */
  id: number;
  botId: string;
  status: "open" | "cleared";
  startedAt: string;
  clearedAt: string | null;
  clearId: number | null;
  cause: {
    reason: string;
    /** Who halted it: `bot`, or the operator of a hand-made halt. */
    haltedBy: string;
    byHand: boolean;
    reconciliationId: number | null;
    /** The drifting line the trip names (or the worst of its cycle); null when the cause is not a drift. */
    drift: IncidentDrift | null;
  };
  /** The symbol the incident is about: the drift's, else the order's; null for a hand-made halt naming none. */
  symbol: string | null;
  order: IncidentOrder | null;
  firstAction: { at: string; actor: string; what: string } | null;
  /** Milliseconds from the trip; null for what has not happened (yet). */
  durations: { toFirstActionMs: number | null; toSettleMs: number | null; toClearMs: number | null };
  /** Who did what, oldest first: a halt by hand, applied operator actions, operator order events, the clear. */
  steps: IncidentStep[];
  /**
   * Operators' attempts the console refused during the incident (in the timeline, with why): they
   * changed nothing, so they are no step, but "nobody has acted" beside them would be untrue.
   */
  refused: { count: number; firstAt: string | null };
}

function parse(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : typeof v === "number" ? String(v) : null);

/** ` at 64,123.5` for a recorded price, written as the timeline and the window write one; nothing for none. */
const atPrice = (v: unknown): string => (typeof v === "number" && Number.isFinite(v) ? ` at ${formatNumber(v)}` : "");

const ms = (from: string, to: string | null | undefined) => (to ? Math.max(0, Date.parse(to) - Date.parse(from)) : null);

/**
 * What in a trip's reason may be an order id: every word with a `-` and a digit ("order q500-… unknown",
 * "2 order(s) unknown after startup recovery: a1-…, a1-…"). The query keeps those that are the bot's orders.
 */
export function orderIdsInReason(reason: string): string[] {
  return [...new Set(reason.match(/[A-Za-z0-9][A-Za-z0-9._:-]*/g) ?? [])]
    .map((w) => w.replace(/[.:]+$/, ""))
    .filter((w) => w.includes("-") && /\d/.test(w))
    .slice(0, 20);
}

/** The drifting line a trip is about: the symbol its reason names, else an unknown position, else the first. */
function causeDrift(reason: string, drifts: readonly IncidentDrift[]): IncidentDrift | null {
  const named = drifts.find((d) => new RegExp(`(^|[^A-Za-z0-9])${d.symbol.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([^A-Za-z0-9]|$)`).test(reason));
  return named ?? drifts.find((d) => d.drift === "unknown_position") ?? drifts[0] ?? null;
}

function doubtfulAt(o: OrderFact): string | null {
  const e = o.events.find((e) => e.kind === "timeout" || (e.kind === "status" && parse(e.detail).status === "unknown"));
  return e?.at ?? null;
}

/**
 * When, by whom and as what the order was settled after `after`: its first settled status, or a
 * lookup that found it absent and was not followed by another send or timeout. The bot sends again
 * an order its lookup found absent (under the same id): that lookup settled nothing, and a try-out's
 * story said "settled as absent" two seconds before the lookup that found the order filled.
 */
function settled(o: OrderFact, after: string | null): { at: string; actor: string; as: string; price: number | null } | null {
  for (const [i, e] of o.events.entries()) {
    if (after !== null && e.at < after) continue;
    if (e.kind === "lookup_absent") {
      if (o.events.slice(i + 1).some((later) => later.kind === "send" || later.kind === "timeout")) continue;
      return { at: e.at, actor: e.actor, as: "absent", price: null };
    }
    const detail = parse(e.detail);
    const status = str(detail.status);
    const price = typeof detail.avgPrice === "number" && Number.isFinite(detail.avgPrice) ? detail.avgPrice : null;
    if (status !== null && SETTLED.has(status)) return { at: e.at, actor: e.actor, as: status, price };
  }
  return null;
}

/**
 * The order behind the trip: one its reason names, else one of the bot's orders on the cause's
 * symbol that was doubtful at the trip (became doubtful before it and had not settled by then),
 * the latest such.
 */
function orderBehind(facts: IncidentFacts, symbol: string | null): IncidentOrder | null {
  const named = orderIdsInReason(facts.trip.reason);
  const byName = facts.orders.find((o) => named.includes(o.clientOrderId));
  const tripAt = facts.trip.at;
  const doubtfulAtTrip = (o: OrderFact) => {
    const d = doubtfulAt(o);
    if (d === null || d > tripAt) return false;
    const s = settled(o, d);
    return s === null || s.at >= tripAt;
  };
  const bySymbol = symbol === null ? [] : facts.orders.filter((o) => o.symbol === symbol && doubtfulAtTrip(o));
  const o = byName ?? bySymbol.at(-1);
  if (!o) return null;
  const d = doubtfulAt(o);
  const s = settled(o, d);
  return {
    clientOrderId: o.clientOrderId,
    symbol: o.symbol,
    side: o.side,
    qty: o.qty,
    state: o.state,
    doubtfulAt: d,
    settledAt: s?.at ?? null,
    settledBy: s?.actor ?? null,
    settledAs: s?.as ?? null,
    settledPrice: s?.price ?? null,
  };
}

function auditStep(a: AuditFact, corrections: readonly CorrectionFact[]): IncidentStep {
  const d = parse(a.detail);
  const input = typeof d.input === "object" && d.input !== null ? (d.input as Record<string, unknown>) : {};
  const slash = a.target.indexOf("/");
  const symbol = slash >= 0 ? a.target.slice(slash + 1) : (str(input.symbol) ?? "");
  const correction = a.action === "correct_book" ? corrections.find((c) => c.actor === a.actor && c.symbol === symbol && c.at <= a.at) : undefined;
  let note = str(d.note) ?? str(d.reason) ?? correction?.note ?? str(input.note) ?? str(input.reason);
  let what: string;
  let mark: IncidentStep["mark"] = "other";
  switch (a.action) {
    case HAND_HALT_ACTION:
      what = `halted ${a.target} by hand`;
      mark = "halt";
      break;
    case "acknowledge_drift":
      what = `acknowledged the drift on ${symbol}`;
      mark = "acknowledge";
      break;
    case "resolve_order_lookup":
      what = `checked order ${a.target} on the exchange${str(d.lookup) ? `: ${str(d.lookup)}` : ""}`;
      mark = "resolve";
      break;
    case "resolve_order_manual": {
      // The action writes what it recorded under `after` (state, price); `status` is how older entries said it.
      const after = typeof d.after === "object" && d.after !== null ? (d.after as Record<string, unknown>) : {};
      const as = str(d.status) ?? str(after.state);
      what = `resolved order ${a.target} by hand${as ? ` as ${as}${atPrice(after.avgPrice)}` : ""}`;
      mark = "resolve";
      break;
    }
    case "correct_book": {
      const kind = str(d.kind) ?? correction?.kind ?? null;
      const delta = typeof d.delta === "number" ? d.delta : correction?.delta;
      // The book's sizes before and after when the correction's row is at hand; the change alone read
      // as the size ("to the exchange's size, -20" of a book that went from +20 to 0).
      const how = kind === "flattened_on_venue" ? " (flattened on the venue)" : kind === "adopt_exchange" ? " to the exchange's size" : "";
      const sizes = correction && delta !== undefined ? `: from ${signedQty(correction.ours)} to ${signedQty(correction.ours + delta)}` : "";
      what = `corrected the book of ${symbol}${how}${sizes}${delta !== undefined ? ` (by ${signedQty(delta)})` : ""}`;
      mark = "correction";
      break;
    }
    case "request_clear_halt":
      what = "asked for the halt to be cleared (two-person rule)";
      break;
    case "approve_clear_halt":
      what = "approved the clear";
      mark = "clear";
      note = str(d.reason) ?? note;
      break;
    case "clear_halt":
      what = "cleared the halt";
      mark = "clear";
      break;
    default:
      what = `${actionLabel(a.action).toLowerCase()} on ${a.target}`;
  }
  // An applied Halt now inside an incident is that incident's own halt: a halted bot cannot be halted again.
  return { id: `audit-${a.id}`, at: a.at, actor: a.actor, what, note, mark, answers: RESPONSES.has(a.action) || a.action === HAND_HALT_ACTION };
}

/** A hand-made halt's reason without the "halted by hand: " the console writes before the operator's words. */
const handReason = (trip: TripFact) => (trip.reason.startsWith(HAND_HALT_PREFIX) ? trip.reason.slice(HAND_HALT_PREFIX.length) : trip.reason);

/** The story of one incident from its facts. What has not happened yet (an open incident's clear) stays null. */
export function tellIncident(facts: IncidentFacts): IncidentStory {
  const { trip, clear } = facts;
  const byHand = isOperator(trip.actor);
  const drift = trip.reconciliationId === null ? null : causeDrift(trip.reason, facts.drifts);
  const firstOrderGuess = drift?.symbol ?? null;
  const order = orderBehind(facts, firstOrderGuess);
  const symbol = drift?.symbol ?? order?.symbol ?? null;

  const applied = facts.audit.filter((a) => a.outcome === "applied" && a.at >= trip.at && (clear === null || a.at <= clear.at));
  const steps: IncidentStep[] = applied.map((a) => auditStep(a, facts.corrections));
  const auditedOrders = new Set(applied.map((a) => a.target));
  for (const o of facts.orders) {
    if (auditedOrders.has(o.clientOrderId)) continue;
    for (const e of o.events) {
      if (!isOperator(e.actor) || e.at < trip.at || (clear !== null && e.at > clear.at)) continue;
      const d = parse(e.detail);
      steps.push({
        id: `order-${e.id}`,
        at: e.at,
        actor: e.actor,
        what: `settled order ${o.clientOrderId}${str(d.status) ? ` as ${str(d.status)}${atPrice(d.avgPrice)}` : ""}`,
        note: str(d.note) ?? str(d.reason),
        mark: "resolve",
        answers: true,
      });
    }
  }
  // A halt or a clear made without the console (raw SQL, another tool) has no audit entry: its breaker event tells it.
  if (byHand && !applied.some((a) => a.action === HAND_HALT_ACTION)) {
    steps.push({
      id: `breaker-${trip.id}`,
      at: trip.at,
      actor: trip.actor,
      what: `halted ${trip.botId} by hand`,
      note: handReason(trip),
      mark: "halt",
      answers: true,
    });
  }
  if (clear !== null && !applied.some((a) => CLEAR_ACTIONS.has(a.action))) {
    steps.push({ id: `breaker-${clear.id}`, at: clear.at, actor: clear.actor, what: "cleared the halt", note: clear.reason, mark: "clear", answers: true });
  }
  steps.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : 1));

  const first = steps.find((s) => s.answers);
  const refused = facts.audit
    .filter((a) => a.outcome === "refused" && isOperator(a.actor) && a.at >= trip.at && (clear === null || a.at <= clear.at))
    .map((a) => a.at)
    .sort();
  return {
    id: trip.id,
    botId: trip.botId,
    status: clear === null ? "open" : "cleared",
    startedAt: trip.at,
    clearedAt: clear?.at ?? null,
    clearId: clear?.id ?? null,
    // A hand-made halt's reason starts with "halted by hand: ", which the cause's words already say.
    cause: {
      reason: byHand ? handReason(trip) : trip.reason,
      haltedBy: trip.actor,
      byHand,
      reconciliationId: trip.reconciliationId,
      drift,
    },
    symbol,
    order,
    firstAction: first ? { at: first.at, actor: first.actor, what: first.what } : null,
    durations: {
      toFirstActionMs: ms(trip.at, first?.at),
      toSettleMs: order?.settledAt ? ms(trip.at, order.settledAt) : null,
      toClearMs: ms(trip.at, clear?.at),
    },
    steps,
    refused: { count: refused.length, firstAt: refused[0] ?? null },
  };
}

/** A story's window up to this long is charted whole: the trip, what led to it and the clear all fit. */
export const STORY_CHART_WHOLE_MS = 2 * HOUR_MS;
/** A longer one is charted around its trip, from this long before it (what led to it)… */
export const STORY_CHART_BEFORE_MS = 10 * MINUTE_MS;
/** …to this long after it (the first responses); the rest is a link away. */
export const STORY_CHART_AFTER_MS = 50 * MINUTE_MS;

/** The span an incident's chart shows: `whole` when it is the story's window, else the hour around the trip. */
export interface StoryChartSpan {
  from: string;
  to: string;
  whole: boolean;
}

/**
 * The chart of an incident open for months over its whole window would draw the trip as a sliver
 * at its left edge: past STORY_CHART_WHOLE_MS the chart shows the trip and what led to it instead,
 * and the page says so and links to the whole. Either ends at `now` at the latest (when given): the
 * window's margin after an open incident, or after a clear a minute ago, lies in the future, and
 * an axis running minutes past now reads as if the chart knew them. A trip or clear the bot's clock
 * put after the console's now (`endAt`) is still charted.
 */
export function storyChartSpan(p: { window: { from: string; to: string }; tripAt: string; endAt?: string; now?: Date }): StoryChartSpan {
  const from = Date.parse(p.window.from);
  const trip = Date.parse(p.tripAt);
  const latest = p.now ? Math.max(p.now.getTime(), trip, p.endAt ? Date.parse(p.endAt) : trip) : Infinity;
  const to = Math.min(Date.parse(p.window.to), latest);
  const end = (t: number) => new Date(t).toISOString();
  if (to - from <= STORY_CHART_WHOLE_MS) return { from: p.window.from, to: end(to), whole: true };
  return {
    from: new Date(floorToMinute(trip - STORY_CHART_BEFORE_MS)).toISOString(),
    to: end(Math.min(to, ceilToMinute(trip + STORY_CHART_AFTER_MS))),
    whole: false,
  };
}

const minIso = (a: string, b: string) => (Date.parse(a) <= Date.parse(b) ? a : b);

/**
 * The symbol page's custom window for the whole incident: the story's window, ending at `readAt` for
 * an open incident (the story's window runs a margin past now, and a chart of the future reads as a
 * quiet market), and at most MAX_CUSTOM_MS long (`capped`).
 */
export function wholeIncidentSpan(window: { from: string; to: string }, readAt: string | null): { from: string; to: string; capped: boolean } {
  const to = readAt === null ? window.to : minIso(window.to, readAt);
  const from = Date.parse(window.from);
  const capped = Date.parse(to) - from > MAX_CUSTOM_MS;
  return { from: window.from, to: capped ? new Date(from + MAX_CUSTOM_MS).toISOString() : to, capped };
}

/** A row of the incidents list: what the list query reads per trip, and what it shows. */
export interface IncidentListRow {
  id: number;
  botId: string;
  reason: string;
  haltedBy: string;
  startedAt: string;
  clearedAt: string | null;
  clearedBy: string | null;
  /** The first applied response in the audit log (RESPONSE_ACTIONS) after the trip, if any. */
  firstAuditAt: string | null;
}

export interface IncidentListItem {
  id: number;
  botId: string;
  cause: string;
  haltedBy: string;
  startedAt: string;
  status: "open" | "cleared";
  toFirstActionMs: number | null;
  toClearMs: number | null;
  /** When the incident's own reconciliation cycles were pruned (journal_prunes); null: kept. */
  cyclesPrunedOn: string | null;
  /** With several journals: the one that holds it (its id is unique only there). */
  journal?: string;
}

/**
 * A list row's durations: the first action is a halt made by hand itself (0 s, as its story tells
 * it), else the audit's first response, or an operator's clear made without the console.
 */
export function listItem(r: IncidentListRow): IncidentListItem {
  const haltByHand = isOperator(r.haltedBy) ? r.startedAt : null;
  const clearByHand = r.clearedAt !== null && r.clearedBy !== null && isOperator(r.clearedBy) ? r.clearedAt : null;
  const first = [haltByHand, r.firstAuditAt, clearByHand].filter((t): t is string => t !== null).sort()[0] ?? null;
  return {
    id: r.id,
    botId: r.botId,
    cause: r.reason,
    haltedBy: r.haltedBy,
    startedAt: r.startedAt,
    status: r.clearedAt === null ? "open" : "cleared",
    toFirstActionMs: ms(r.startedAt, first),
    toClearMs: ms(r.startedAt, r.clearedAt),
    cyclesPrunedOn: null,
  };
}

export interface IncidentWeek {
  /** Monday 00:00 UTC of the week, ISO. */
  week: string;
  incidents: number;
  /** Median time to clear of the week's cleared incidents; null when none cleared. */
  medianToClearMs: number | null;
}

const DAY_MS = 86_400_000;

/** Monday 00:00 UTC of the week holding `iso`. */
export function weekStart(iso: string): string {
  const t = Date.parse(iso);
  const day = Math.floor(t / DAY_MS);
  // 1970-01-01 was a Thursday: day 0 is 3 days after a Monday.
  const monday = day - ((day + 3) % 7);
  return new Date(monday * DAY_MS).toISOString();
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Incidents per week (by the week they started in), oldest week first, empty weeks between included. */
export function incidentsPerWeek(items: readonly IncidentListItem[]): IncidentWeek[] {
  if (items.length === 0) return [];
  const byWeek = new Map<string, IncidentListItem[]>();
  for (const i of items) {
    const w = weekStart(i.startedAt);
    const list = byWeek.get(w);
    if (list) list.push(i);
    else byWeek.set(w, [i]);
  }
  const weeks = [...byWeek.keys()].sort();
  const out: IncidentWeek[] = [];
  for (let t = Date.parse(weeks[0]!); t <= Date.parse(weeks.at(-1)!); t += 7 * DAY_MS) {
    const week = new Date(t).toISOString();
    const list = byWeek.get(week) ?? [];
    out.push({
      week,
      incidents: list.length,
      medianToClearMs: median(list.map((i) => i.toClearMs).filter((v): v is number => v !== null)),
    });
  }
  return out;
}
