/**
 * An incident window as a file: JSON for tools, CSV for spreadsheets. Pure builders over the
 * timeline the page shows, so both hold exactly its events, in its order, in its words.
 */
import { csvLine, toCsv, type CsvCell } from "../text/csv";
import type { IncidentEvent } from "./events";
import type { IncidentFilters, IncidentWindow } from "../url-state/incidents";

export const INCIDENT_CSV_COLUMNS = [
  "at",
  "source",
  "kind",
  "bot_id",
  "actor",
  "operator",
  "severity",
  "symbol",
  "side",
  "qty",
  "strategy",
  "client_order_id",
  "reconciliation_id",
  "target",
  "outcome",
  "reason",
  "summary",
  "drifts",
  "detail",
  "id",
  "journal",
] as const;

export interface IncidentExport {
  window: IncidentWindow;
  filters: { bot: string | null; kinds: string[] };
  /** More events fell in the window than `limit`: these are the first `limit`. */
  capped: boolean;
  limit: number;
  /** With several journals: those that could not be read, so the file is known to lack their events. Absent when all were read. */
  unreadJournals?: { journal: string; problem: string }[];
  events: IncidentEvent[];
}

export function incidentJson(params: {
  window: IncidentWindow;
  filters: IncidentFilters;
  events: IncidentEvent[];
  capped: boolean;
  limit: number;
  unreadJournals?: { journal: string; problem: string }[];
}): IncidentExport {
  return {
    window: { from: params.window.from, to: params.window.to },
    filters: { bot: params.filters.bot, kinds: [...params.filters.kinds] },
    capped: params.capped,
    limit: params.limit,
    ...(params.unreadJournals && params.unreadJournals.length > 0 ? { unreadJournals: params.unreadJournals } : {}),
    events: params.events,
  };
}

/** One row per event; drifts and detail as JSON text (quoted as RFC 4180 requires). */
export function incidentCsv(events: readonly IncidentEvent[]): string {
  return toCsv(INCIDENT_CSV_COLUMNS, events.map(csvCells));
}

function csvCells(e: IncidentEvent): CsvCell[] {
  return [
    e.at,
    e.source,
    e.kind,
    e.botId,
    e.actor,
    e.operator ? "true" : "false",
    e.severity,
    e.symbol,
    e.side,
    e.qty,
    e.strategy,
    e.clientOrderId,
    e.reconciliationId,
    e.target,
    e.outcome,
    e.reason,
    e.summary,
    e.drifts.length > 0 ? JSON.stringify(e.drifts) : "",
    e.detail === null ? "" : typeof e.detail === "string" ? e.detail : JSON.stringify(e.detail),
    e.id,
    e.journal ?? "",
  ];
}

/** Events serialised by one JSON.stringify in the JSON export. */
const EXPORT_JSON_BATCH = 256;

type ExportHead = Omit<IncidentExport, "events">;

/**
 * The export's text, piece by piece, exactly `JSON.stringify(incidentJson(…))` plus a newline, or
 * incidentCsv: the route streams it (lib/http/text-stream.ts), so a 50,000-event file is never one
 * string and its first bytes leave before the last event is written.
 */
export function incidentExportText(exp: ExportHead & { events: Iterable<IncidentEvent> }, format: "json" | "csv"): Generator<string> {
  const { events, ...head } = exp;
  // Its one run is text, so every piece is.
  return incidentExportPieces(head, [exportEventText(events, format)], format) as Generator<string>;
}

/**
 * incidentExportText of a window written in runs: each run its events' text (exportEventText),
 * worded here or already written as bytes by the export thread (lib/incidents/export-thread.ts),
 * in window order. The same text as one run of all their events: only the commas between two runs
 * are added here.
 */
export function* incidentExportPieces(head: ExportHead, runs: Iterable<Iterable<string | Uint8Array>>, format: "json" | "csv"): Generator<string | Uint8Array> {
  if (format === "csv") yield csvLine(INCIDENT_CSV_COLUMNS);
  // `events` is the last key, so the head's JSON ends in `[]}`: open the array there.
  else yield JSON.stringify({ ...head, events: [] }).slice(0, -2);
  let written = false;
  for (const run of runs) {
    let first = true;
    for (const piece of run) {
      if (first && written && format === "json") yield ",";
      first = false;
      written = true;
      yield piece;
    }
  }
  if (format === "json") yield "]}\n";
}

/**
 * Events as the file writes them, without the head: CSV records, or the JSON array's elements
 * separated by commas (none before the first). Nothing at all for no events.
 */
export function* exportEventText(events: Iterable<IncidentEvent>, format: "json" | "csv"): Generator<string> {
  if (format === "csv") {
    // Lazily: a row's cells are built only when the stream asks for it.
    for (const e of events) yield csvLine(csvCells(e));
    return;
  }
  // Serialised a few hundred at a time: one JSON.stringify of an array took a third of the time of
  // one per event (17 against 6 ms for a busy hour's 6,500, docs/performance.md), and a batch is
  // still a small piece of the stream.
  let batch: IncidentEvent[] = [];
  let first = true;
  const flush = () => {
    const text = JSON.stringify(batch);
    const piece = first ? text.slice(1, -1) : `,${text.slice(1, -1)}`;
    first = false;
    batch = [];
    return piece;
  };
  for (const e of events) {
    batch.push(e);
    if (batch.length === EXPORT_JSON_BATCH) yield flush();
  }
  if (batch.length > 0) yield flush();
}

/**
 * `driftwatch-incident-<from>-<to>[_bot-<bot>][_kind-<kind>-<kind>][-incomplete].<ext>`: the bot and
 * the kinds the window is filtered to (`filters.kinds` as kindsFilter gives them: none for every
 * kind), so bot alpha's file and every bot's file of one window never share a name (incomplete: a journal of several could not be read, so its events are
 * not in the file). Safe as a file name on any system: only letters, digits, `-`, `.` and `_`
 * survive (the times' colons become `-`, a bot's own `_` too, so `_bot-` and `_kind-` stay the
 * only `_`), so no path or header tricks.
 */
export function incidentExportFilename(
  window: IncidentWindow,
  ext: "json" | "csv",
  options: { incomplete?: boolean; filters?: Partial<IncidentFilters> } = {},
): string {
  const safe = (s: string, max = 40) =>
    s
      .replace(/[^A-Za-z0-9.-]/g, "-")
      .replace(/\.{2,}/g, ".")
      .replace(/^[.-]+/, "")
      .slice(0, max);
  const { bot, kinds = [] } = options.filters ?? {};
  const botPart = bot ? `_bot-${safe(bot, 80) || "-"}` : "";
  const kindPart = kinds.length > 0 ? `_kind-${kinds.map((k) => safe(k)).join("-")}` : "";
  return `driftwatch-incident-${safe(window.from)}-${safe(window.to)}${botPart}${kindPart}${options.incomplete ? "-incomplete" : ""}.${ext}`;
}
