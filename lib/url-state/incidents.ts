/**
 * The incident review's window and filters, read from the URL. Pure: the page, the export routes
 * and the breakers page's "review this incident" links share these rules, so a link one of them
 * makes is always one the others accept.
 *
 * Windows are half-open, [from, to): an event at exactly `to` belongs to the next window.
 */
import { z } from "zod";
import { BOT_ID_MAX } from "../journal/ids";
import { formatAge } from "../text/format";
import { CONTROL } from "./path-ids";
import { oneSearchParam } from "./search-param-fields";
import { searchParamsRecord, type SearchParamsInput } from "./search-params";
import { parseUtcTime } from "./symbol";

export const INCIDENT_KINDS = ["order", "reconciliation", "breaker", "operator"] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
/** The default window, and what a window given by one end only extends to. */
export const DEFAULT_WINDOW_MS = 60 * MINUTE_MS;
/** Wider windows are refused: the rows cap keeps them cheap, but nobody reads a week minute by minute. */
export const MAX_WINDOW_MS = 7 * 24 * HOUR_MS;
/** Around a trip: this long before it and after its clear. */
export const INCIDENT_MARGIN_MS = 15 * MINUTE_MS;

export interface IncidentFilters {
  bot: string | null;
  /** In INCIDENT_KINDS order; every kind when the URL names none. */
  kinds: IncidentKind[];
}

export interface IncidentWindow {
  from: string;
  to: string;
}

export type IncidentQuery =
  | ({ ok: true; from: string | null; to: string | null } & IncidentFilters)
  | { ok: false; message: string; fieldErrors: Record<string, string[]>; raw: { from: string; to: string } & IncidentFilters };

const TIME_HINT = "must be a UTC time such as 2026-08-10 15:30:00 or 2026-08-10T15:30:00Z (milliseconds and +hh:mm offsets allowed)";

/**
 * A time as the symbol page's range takes it (parseUtcTime): ISO-8601, or typed with a space and no
 * zone, read as UTC like every time the console shows. The two forms differed between the pages
 * and a try-out met the refusal of one on the other.
 */
const instant = (name: string) =>
  oneSearchParam(name).pipe(
    z
      .string()
      .transform((s, ctx) => {
        const t = parseUtcTime(s);
        if (Number.isNaN(t)) {
          ctx.addIssue({ code: "custom", message: TIME_HINT });
          return z.NEVER;
        }
        return new Date(t).toISOString();
      })
      .optional(),
  );

const schema = z
  .object({
    from: instant("from"),
    to: instant("to"),
    bot: oneSearchParam("bot").pipe(
      z
        .string()
        .max(BOT_ID_MAX, `is longer than any bot id (${BOT_ID_MAX} characters)`)
        // As a path's bot id is checked (lib/url-state/path-ids.ts): the export puts it in its file name.
        .refine((b) => !CONTROL.test(b), "contains a control character (such as %00 or a line break); no bot id does")
        .optional(),
    ),
    kind: z.preprocess(
      (v) =>
        v === undefined
          ? []
          : (Array.isArray(v) ? v : [v])
              .flatMap((s) => String(s).split(","))
              .map((s) => s.trim())
              .filter(Boolean),
      z.array(z.enum(INCIDENT_KINDS, { error: `must be one of ${INCIDENT_KINDS.join(", ")}` })),
    ),
  })
  .superRefine((v, ctx) => {
    if (!v.from || !v.to) return;
    const width = Date.parse(v.to) - Date.parse(v.from);
    if (width <= 0) {
      ctx.addIssue({ code: "custom", path: ["to"], message: `must be after from (${v.from}); the window is reversed or empty` });
    } else if (width > MAX_WINDOW_MS) {
      ctx.addIssue({
        code: "custom",
        path: ["to"],
        message: `makes a window of ${formatAge(width)}; the widest allowed is ${formatAge(MAX_WINDOW_MS)}. Narrow it`,
      });
    }
  });

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? (v[0] ?? "") : (v ?? ""));

const orderKinds = (kinds: readonly string[]): IncidentKind[] => {
  const set = new Set(kinds);
  const chosen = INCIDENT_KINDS.filter((k) => set.has(k));
  return chosen.length === 0 ? [...INCIDENT_KINDS] : chosen;
};

/**
 * Reads ?from&to&bot&kind. A window given by one end gets the other a default width away; one
 * given by neither is left to the caller (it depends on the journal). Never throws: a bad value
 * comes back as a sentence naming the parameter, for the page to show next to the form.
 */
export function parseIncidentQuery(params: SearchParamsInput): IncidentQuery {
  const record = searchParamsRecord(params);
  const result = schema.safeParse(record);
  if (!result.success) {
    const fieldErrors: Record<string, string[]> = {};
    for (const issue of result.error.issues) {
      const key = String(issue.path[0] ?? "query");
      (fieldErrors[key] ??= []).push(issue.message);
    }
    const message = Object.entries(fieldErrors)
      .map(([k, msgs]) => `${k} ${msgs.join("; ")}`)
      .join(". ");
    const rawKinds = [record.kind ?? []].flat().flatMap((s) => s.split(","));
    return {
      ok: false,
      message: `${message}.`,
      fieldErrors,
      raw: { from: first(record.from), to: first(record.to), bot: first(record.bot) || null, kinds: orderKinds(rawKinds) },
    };
  }
  const v = result.data;
  let from = v.from ?? null;
  let to = v.to ?? null;
  if (from && !to) to = new Date(Date.parse(from) + DEFAULT_WINDOW_MS).toISOString();
  if (to && !from) from = new Date(Date.parse(to) - DEFAULT_WINDOW_MS).toISOString();
  return { ok: true, from, to, bot: v.bot ?? null, kinds: orderKinds(v.kind) };
}

export const floorToMinute = (ms: number) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;
export const ceilToMinute = (ms: number) => Math.ceil(ms / MINUTE_MS) * MINUTE_MS;

/**
 * The window to review a trip in: from INCIDENT_MARGIN_MS before it to as long after its clear,
 * or to now (at least the margin past the trip) while it is still halted. Minute-aligned so a
 * link stays the same between polls, and never wider than MAX_WINDOW_MS: a halt longer than that
 * is reviewed from its start.
 */
export function incidentWindowAround(params: { tripAt: string; endAt: string | null; now: Date }): IncidentWindow {
  const trip = Date.parse(params.tripAt);
  const from = floorToMinute(trip - INCIDENT_MARGIN_MS);
  const end = params.endAt === null ? Math.max(params.now.getTime(), trip + INCIDENT_MARGIN_MS) : Date.parse(params.endAt) + INCIDENT_MARGIN_MS;
  const to = Math.min(ceilToMinute(Math.max(end, trip + 1)), from + MAX_WINDOW_MS);
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

/** The kinds a filter keeps to: none when it keeps every kind, which is no filter (a link then leaves `kind` out). */
export function kindsFilter(kinds: readonly IncidentKind[] | undefined): IncidentKind[] {
  return kinds && kinds.length > 0 && kinds.length < INCIDENT_KINDS.length ? [...kinds] : [];
}

function query(window: IncidentWindow, filters: Partial<IncidentFilters>, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({ from: window.from, to: window.to });
  if (filters.bot) q.set("bot", filters.bot);
  const kinds = kindsFilter(filters.kinds);
  if (kinds.length > 0) q.set("kind", kinds.join(","));
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  return q.toString();
}

export function incidentHref(window: IncidentWindow, filters: Partial<IncidentFilters> = {}, hash?: string): string {
  return `/incidents?${query(window, filters)}${hash ? `#${hash}` : ""}`;
}

export function incidentExportHref(window: IncidentWindow, filters: Partial<IncidentFilters>, format: "json" | "csv"): string {
  return `/api/incidents/export?${query(window, filters, { format })}`;
}

/** The same width, earlier or later: for reading on past the edge of a window. */
export function shiftWindow(window: IncidentWindow, direction: -1 | 1): IncidentWindow {
  const from = Date.parse(window.from);
  const width = Date.parse(window.to) - from;
  return { from: new Date(from + direction * width).toISOString(), to: new Date(from + (direction + 1) * width).toISOString() };
}

/**
 * Whether the URL asks for the minute-by-minute window (a time, a kind, or `view=window`); the bare
 * `/incidents` and `/incidents?bot=` are the list of incidents. Links made before the list (the
 * breakers' review links) carry a window, so they still open the window they named.
 */
export function wantsWindow(params: SearchParamsInput): boolean {
  const record = searchParamsRecord(params);
  return record.from !== undefined || record.to !== undefined || record.kind !== undefined || record.view !== undefined;
}

/** The minute-by-minute view of the last hour (or of the latest activity): the window view without a window. */
export function lastHourHref(bot: string | null): string {
  return `/incidents?view=window${bot ? `&bot=${encodeURIComponent(bot)}` : ""}`;
}

/** The list of incidents, for every bot or one. */
export function incidentListHref(bot: string | null, opts: { allRows?: boolean } = {}): string {
  const q = new URLSearchParams();
  if (bot) q.set("bot", bot);
  if (opts.allRows) q.set("rows", "all");
  const query = q.toString();
  return query ? `/incidents?${query}` : "/incidents";
}

/**
 * The list's rows shown before "Show all": the newest incidents, which are the ones looked for. Its
 * 500 rows were 671 KB of HTML on the reference journal, a long page on a phone; the weekly chart
 * above them still counts every one.
 */
export const INCIDENT_ROWS_SHOWN = 50;

/** `?rows=all`: every incident the list read, not only the newest INCIDENT_ROWS_SHOWN. */
export function wantsAllIncidentRows(params: SearchParamsInput): boolean {
  const rows = searchParamsRecord(params).rows;
  return (Array.isArray(rows) ? rows[0] : rows) === "all";
}

/**
 * An incident's id in a path: its trip's breaker_events id, a positive integer; with several
 * journals, the journal's name before it (`alpha-12`: the name is everything before the last `-`).
 * Null for anything else.
 */
export interface IncidentRef {
  journal: string | null;
  trip: number;
}

export function parseIncidentId(raw: string): IncidentRef | null {
  const m = /^(?:([A-Za-z0-9][A-Za-z0-9_.-]{0,63})-)?([1-9]\d{0,15})$/.exec(raw);
  if (!m) return null;
  const trip = Number(m[2]);
  return Number.isSafeInteger(trip) ? { journal: m[1] ?? null, trip } : null;
}

/** The path form of an incident's id: `12`, or `alpha-12` with several journals. */
export const incidentIdText = (trip: number, journal?: string | null) => (journal ? `${journal}-${trip}` : String(trip));

export const incidentStoryHref = (trip: number, journal?: string | null) => `/incidents/${incidentIdText(trip, journal)}`;
export const postmortemHref = (trip: number, journal?: string | null) => `/api/incidents/${incidentIdText(trip, journal)}/postmortem`;
