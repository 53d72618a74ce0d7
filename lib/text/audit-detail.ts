/**
 * An audit entry in words: a label for each action name and each detail key the console writes,
 * so the audit page reads as sentences, not JSON. Pure; the text it returns is still raw (the page
 * passes it through visibleText, and names were already masked for the reader by the query).
 */

const ACTION_LABELS: Record<string, string> = {
  acknowledge_drift: "Acknowledge a drift",
  clear_halt: "Clear a halt",
  request_clear_halt: "Ask to clear a halt (first of two operators)",
  approve_clear_halt: "Approve clearing a halt (second of two operators)",
  resolve_order_lookup: "Check a doubtful order on the exchange",
  resolve_order_manual: "Resolve a doubtful order by hand",
  correct_book: "Correct a bot's book",
  halt_bot: "Halt now",
  alert_silence: "Silence the page in Alertmanager, or end the silence",
};

/** "Clear a halt" for `clear_halt`; an action this console does not know reads as its words. */
export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action.replace(/_/g, " ");
}

/** How a value is shown: prose wraps at spaces, an id may break anywhere in its own element, a time is a time. */
export type DetailValue = { kind: "text"; text: string } | { kind: "id"; text: string } | { kind: "time"; iso: string };

export interface DetailItem {
  key: string;
  label: string;
  value: DetailValue;
}

const DETAIL_LABELS: Record<string, string> = {
  message: "Refused because",
  reasons: "Reasons",
  fieldErrors: "Field errors",
  reason: "Reason",
  note: "Note",
  kind: "Kind",
  drift: "Drift",
  ours: "Ours (bot's book)",
  theirs: "Theirs (exchange)",
  delta: "Delta added to the book",
  breakerVersion: "Breaker version",
  reconciliationId: "Reconciliation",
  expiresAt: "Expires",
  at: "Cycle at",
  ended: "Drift already ended",
  trippedReason: "Tripped on",
  trippedAt: "Tripped at",
  requestId: "Clear request",
  requestedBy: "Requested by",
  seen: "As the operator saw it",
  now: "As it was",
  before: "Before",
  after: "After",
  lookup: "Exchange lookup",
  status: "Status",
  state: "State",
  filledQty: "Filled quantity",
  avgPrice: "Average price",
  version: "Version",
  symbol: "Symbol",
  botId: "Bot",
  clientOrderId: "Client order id",
  exchangeOrderId: "Exchange order id",
  simulated: "Simulated (demo)",
  acknowledgementId: "Acknowledgement",
  acknowledgedUntil: "Acknowledged until",
  correctionId: "Correction",
  book: "The bot's book after",
  silenceId: "Alertmanager silence",
  expiredSilenceIds: "Alertmanager silences expired",
  silenceIds: "Alertmanager silences not expired",
  input: "Form input (summary)",
};

const ID_KEYS = new Set([
  "clientOrderId",
  "exchangeOrderId",
  "requestId",
  "reconciliationId",
  "botId",
  "symbol",
  "acknowledgementId",
  "silenceId",
  "correctionId",
]);
const TIME_KEYS = new Set(["expiresAt", "at", "trippedAt", "changedAt", "correctedAt", "acknowledgedUntil"]);

const WORDS: Record<string, string> = {
  size_drift: "size drift",
  unknown_position: "unknown position",
  adopt_exchange: "adopt the exchange's position",
  flattened_on_venue: "flattened on the venue",
  partially_filled: "partially filled",
};

const word = (v: unknown): string => {
  if (v === null || v === undefined) return "none";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "number") return v.toLocaleString("en-US", { maximumFractionDigits: 12 });
  if (typeof v === "string") return WORDS[v] ?? v;
  return inline(v);
};

const labelOf = (key: string) => DETAIL_LABELS[key]?.toLowerCase() ?? key;

/** A nested value on one line: `state unknown, version 57`, `note: too long; …`. */
function inline(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? "none" : v.map((x) => word(x)).join("; ");
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return "none";
    return entries.map(([k, x]) => `${labelOf(k)} ${word(x)}`).join(", ");
  }
  return word(v);
}

/** The guard's summary of a form (`{fields: {note: {length, prefix?}}}`) as `note (12 characters, "checked w…")`. */
function inputSummary(v: unknown): string {
  if (v === null || typeof v !== "object" || !("fields" in v)) return inline(v);
  const { fields, omittedFields } = v as { fields: Record<string, { length: number | null; prefix?: string; type?: string }>; omittedFields?: number };
  const parts = Object.entries(fields ?? {}).map(([name, f]) => {
    if (f === null || typeof f !== "object") return name;
    if (f.length === null) return `${name} (${f.type ?? "not text"})`;
    return `${name} (${f.length} character${f.length === 1 ? "" : "s"}${f.prefix !== undefined ? `, "${f.prefix}${f.prefix.length < f.length ? "…" : ""}"` : ""})`;
  });
  if (omittedFields) parts.push(`${omittedFields} more field${omittedFields === 1 ? "" : "s"}`);
  return parts.length === 0 ? "no fields" : parts.join(", ");
}

function fieldErrors(v: unknown): string {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return inline(v);
  return Object.entries(v as Record<string, unknown>)
    .map(([field, errors]) => `${field}: ${Array.isArray(errors) ? errors.map((e) => word(e)).join("; ") : word(errors)}`)
    .join("; ");
}

/**
 * An entry's `detail` JSON as labelled items, known keys first in a fixed order and the others
 * after, in the order written. Text that is not a JSON object comes back as one item, as it is.
 */
export function auditDetailItems(detail: string): DetailItem[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(detail);
  } catch {
    return [{ key: "detail", label: "Detail", value: { kind: "text", text: detail } }];
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    return [{ key: "detail", label: "Detail", value: { kind: "text", text: detail } }];
  const entries = Object.entries(parsed as Record<string, unknown>).filter(([, v]) => v !== undefined);
  const order = Object.keys(DETAIL_LABELS);
  const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
  entries.sort((a, b) => rank(a[0]) - rank(b[0]));
  const items: DetailItem[] = [];
  for (const [key, v] of entries) {
    // An empty list of reasons or no field errors says nothing.
    if ((key === "reasons" && Array.isArray(v) && v.length === 0) || (key === "fieldErrors" && (v === null || v === undefined))) continue;
    const label = DETAIL_LABELS[key] ?? key;
    let value: DetailValue;
    if (TIME_KEYS.has(key) && typeof v === "string" && !Number.isNaN(Date.parse(v))) value = { kind: "time", iso: v };
    else if (ID_KEYS.has(key) && (typeof v === "string" || typeof v === "number")) value = { kind: "id", text: String(v) };
    else if (key === "input") value = { kind: "text", text: inputSummary(v) };
    else if (key === "fieldErrors") value = { kind: "text", text: fieldErrors(v) };
    else value = { kind: "text", text: word(v) };
    items.push({ key, label, value });
  }
  return items;
}
