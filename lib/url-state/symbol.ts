/**
 * What the symbol page shows. The chart's time range is read from the URL (`?range=15m|1h|day|custom&from=ISO&to=ISO`) so
 * a view can be shared and survives a reload. Pure: the page, the JSON route and the client's links
 * apply the same rules.
 *
 * 15 min and 1 h end now. The trading day starts at 00:00 UTC of the day of the latest data (today
 * while the bot runs; the day under review otherwise). A custom window is two UTC times.
 */
import { z } from "zod";
import { firstSearchParam } from "./search-param-fields";
import { searchParamsRecord, type SearchParamsInput } from "./search-params";

/** Orders per page of the symbol's order list, and the most it lists. */
export const ORDERS_PAGE = 20;
export const MAX_ORDERS = 200;

export const RANGES = ["15m", "1h", "day", "custom"] as const;
export type RangeKind = (typeof RANGES)[number];

export type SymbolRange = { kind: "15m" } | { kind: "1h" } | { kind: "day" } | { kind: "custom"; from: string; to: string };

export const DEFAULT_RANGE: SymbolRange = { kind: "15m" };

export const RANGE_LABELS: Record<RangeKind, string> = { "15m": "15 min", "1h": "1 h", day: "Trading day", custom: "Custom" };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Longer windows are allowed; beyond a year it is surely a typo. */
export const MAX_CUSTOM_MS = 366 * DAY;

// ISO-8601 in UTC (`Z` or an offset), or as typed in the page's fields: a space for the `T`, and no
// zone (read as UTC, like every time on the page).
const TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})?$/;

/** Epoch ms of a time in one of those forms; NaN when it is not one, or names no real instant (Feb 31). */
export function parseUtcTime(v: string): number {
  const m = TIME.exec(v);
  if (!m) return NaN;
  const [y, mo, d, h, mi, s = "0", frac = "0", zone = "Z"] = m.slice(1) as [string, string, string, string, string, string?, string?, string?];
  const parts = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
  const local = Date.UTC(...parts, Number(frac.padEnd(3, "0")));
  const back = new Date(local);
  const same = [back.getUTCFullYear(), back.getUTCMonth(), back.getUTCDate(), back.getUTCHours(), back.getUTCMinutes(), back.getUTCSeconds()];
  if (same.some((x, i) => x !== parts[i])) return NaN;
  if (zone === "Z") return local;
  const sign = zone.startsWith("-") ? -1 : 1;
  const [oh, om] = zone.slice(1).split(":").map(Number) as [number, number];
  if (oh > 23 || om > 59) return NaN;
  return local - sign * (oh * 60 + om) * 60_000;
}

/** What the user typed, quoted back in a message: enough to recognise it, never the whole of a 3 KB paste. */
const echo = (v: unknown) => {
  const text = String(v);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
};

const time = (field: "from" | "to") =>
  z
    .string({ error: `${field} is missing: give a UTC time like 2026-08-10T15:30:00Z` })
    .trim()
    .refine((v) => !Number.isNaN(parseUtcTime(v)), {
      error: (issue) => `${field} "${echo(issue.input)}" is not a time: use a UTC time like 2026-08-10T15:30:00Z`,
    })
    .transform((v) => new Date(parseUtcTime(v)).toISOString());

const schema = z.discriminatedUnion(
  "range",
  [
    z.object({ range: z.literal("15m") }),
    z.object({ range: z.literal("1h") }),
    z.object({ range: z.literal("day") }),
    z
      .object({ range: z.literal("custom"), from: time("from"), to: time("to") })
      .refine((v) => Date.parse(v.to) > Date.parse(v.from), { error: "to must be after from", path: ["to"] })
      .refine((v) => Date.parse(v.to) - Date.parse(v.from) <= MAX_CUSTOM_MS, { error: "a custom window may span at most 366 days", path: ["to"] }),
  ],
  { error: (issue) => `range "${echo((issue.input as { range?: unknown })?.range)}" is not one of 15m, 1h, day, custom` },
);

export type RangeParse = { ok: true; range: SymbolRange } | { ok: false; message: string };

// Each parameter's first value, as links and the range form write them once.
const given = z.object({ range: firstSearchParam, from: firstSearchParam, to: firstSearchParam });

/** The range in a URL's query; no `range` at all means the last 15 min. */
export function parseSymbolRange(input: SearchParamsInput): RangeParse {
  const { range, from, to } = given.parse(searchParamsRecord(input));
  if (range === undefined || range === "") return { ok: true, range: DEFAULT_RANGE };
  const result = schema.safeParse({ range, from, to });
  if (!result.success) return { ok: false, message: result.error.issues.map((i) => i.message).join("; ") };
  const v = result.data;
  return { ok: true, range: v.range === "custom" ? { kind: "custom", from: v.from, to: v.to } : { kind: v.range } };
}

/** The query string for a range, as the URL and the JSON route take it. */
export function rangeToQuery(range: SymbolRange): string {
  const q = new URLSearchParams({ range: range.kind });
  if (range.kind === "custom") {
    q.set("from", range.from);
    q.set("to", range.to);
  }
  return `?${q.toString()}`;
}

export interface ChartWindow {
  from: string;
  to: string;
  /** True when the window reaches now, so new cycles keep arriving: the chart polls. */
  live: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY) * DAY;
}

/**
 * The window a range means at `now`. `latestAt` is the time of the latest data (the bot's latest
 * compared reconciliation), which picks the trading day when the journal is history.
 */
export function resolveWindow(range: SymbolRange, opts: { now: Date; latestAt: string | null }): ChartWindow {
  const now = opts.now.getTime();
  switch (range.kind) {
    case "15m":
      return { from: iso(now - 15 * MINUTE), to: iso(now), live: true };
    case "1h":
      return { from: iso(now - HOUR), to: iso(now), live: true };
    case "day": {
      const latest = opts.latestAt === null ? NaN : Date.parse(opts.latestAt);
      const dayStart = startOfUtcDay(Number.isNaN(latest) ? now : latest);
      const dayEnd = dayStart + DAY;
      if (dayEnd <= now) return { from: iso(dayStart), to: iso(dayEnd), live: false };
      // Today (or, with a clock behind the bot's, a day that has not started here yet).
      return { from: iso(dayStart), to: iso(Math.max(now, dayStart + MINUTE)), live: true };
    }
    case "custom":
      return { from: range.from, to: range.to, live: Date.parse(range.to) >= now };
  }
}

export interface HistoryNotice {
  latestAt: string;
  /** Ranges around the latest data, each with a label for its link. */
  offers: { label: string; range: SymbolRange }[];
}

/**
 * When a window that ends now holds no data because the latest cycle is older than its start (a
 * journal under review, a bot that stopped), say so and offer the ranges around the latest data.
 */
export function historyNotice(window: ChartWindow, latestAt: string | null): HistoryNotice | null {
  if (latestAt === null || !window.live) return null;
  const latest = Date.parse(latestAt);
  if (Number.isNaN(latest) || latest >= Date.parse(window.from)) return null;
  const margin = MINUTE;
  return {
    latestAt,
    offers: [
      { label: "the 15 min up to it", range: { kind: "custom", from: iso(latest - 15 * MINUTE), to: iso(latest + margin) } },
      { label: "the hour up to it", range: { kind: "custom", from: iso(latest - HOUR), to: iso(latest + margin) } },
      { label: "its trading day", range: { kind: "day" } },
    ],
  };
}

/**
 * `2026-08-10 15:30:00`: a UTC time as the pages show it and their time fields take it (the symbol
 * page's range, the incident window). Its milliseconds only when it has some, so a window sent
 * back unchanged is the same window: an incident's end at `15:31:02.417` cut to `15:31:02` would
 * leave out what happened in between.
 */
export function toUtcInputValue(isoTime: string): string {
  const t = Date.parse(isoTime);
  if (Number.isNaN(t)) return "";
  const iso = new Date(t).toISOString();
  return (iso.endsWith(".000Z") ? iso.slice(0, 19) : iso.slice(0, 23)).replace("T", " ");
}
