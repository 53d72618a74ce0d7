/**
 * A busy minute, folded: at a thousand orders an hour a bot writes a hundred routine lines a
 * minute (an intent, a send that filled, a clean reconciliation), and the few that matter (a
 * timeout, an unknown order, a drift, a trip, an operator) drown in them. Pure: the timeline shows
 * the notable events of such a minute and one line counting the routine rest, which the reader can
 * open; quieter minutes are shown whole.
 */
import { MINUTE_MS } from "../url-state/incidents";
import type { IncidentEvent } from "./events";
import { consoleActionAudits, repeatLines, type RepeatLine } from "./lines";

/** A minute with more routine events than this is folded. */
export const FOLD_ROUTINE_OVER = 20;

/** Nothing went wrong and nobody acted: an info line a bot writes in the normal course. */
export const isRoutine = (e: IncidentEvent) => e.severity === "info" && !e.operator;

/**
 * Drift cycles that say nothing new: the same bot's previous reconciliation in these events was a
 * drift of the same symbols at the same sizes. A drift that lasts ten minutes is one notable line
 * (its first cycle) and a count, not forty identical warnings; a clean cycle ends the run, and any
 * change of symbol, size or class is notable again.
 */
export function unchangedDrifts(events: readonly IncidentEvent[]): Set<string> {
  const previous = new Map<string, string | null>();
  const out = new Set<string>();
  for (const e of events) {
    if (e.source !== "reconciliation") continue;
    const bot = e.botId ?? "";
    if (e.kind === "drift") {
      const signature = JSON.stringify(e.drifts.map((d) => [d.symbol, d.drift, d.ours, d.theirs]));
      if (e.drifts.length > 0 && previous.get(bot) === signature) out.add(e.id);
      previous.set(bot, signature);
    } else if (e.kind === "clean") {
      previous.set(bot, null);
    }
  }
  return out;
}

export interface FoldedMinute {
  /** Every event that is not routine, in time order. */
  notable: IncidentEvent[];
  routine: number;
  /** What the routine events are, most frequent first: "14 order intents". */
  routineKinds: { words: string; n: number }[];
  /** The same counts by source and kind, in the same order: what a run of minutes adds up. */
  counts: RoutineCount[];
}

/** What a count of routine events of one (source, kind) is called: [one, several]. */
const kindWords: Record<string, [string, string]> = {
  "order intent": ["order intent", "order intents"],
  "order send": ["order sent", "orders sent"],
  "order status": ["order status change", "order status changes"],
  "reconciliation clean": ["clean reconciliation", "clean reconciliations"],
  "reconciliation skipped": ["skipped reconciliation", "skipped reconciliations"],
  "reconciliation drift": ["drift cycle unchanged from the one before", "drift cycles unchanged from the one before"],
};

/** Routine events of one (source, kind) in words, without their number: "order intents". The page's folds and an incident's story count them alike. */
export function routineKindWords(source: string, kind: string, n: number): string {
  const known = kindWords[`${source} ${kind}`];
  const [one, many] = known ?? [`${source} ${kind.replaceAll("_", " ")}`, `${source} ${kind.replaceAll("_", " ")} events`];
  return n === 1 ? one : many;
}

const words = (source: string, kind: string, n: number): string => `${n.toLocaleString("en-US")} ${routineKindWords(source, kind, n)}`;

/** Routine events of one (source, kind), as a minute counts them. */
export interface RoutineCount {
  source: string;
  kind: string;
  n: number;
}

/**
 * A minute folded from its notable events and its routine counts (keyed `<source> <kind>`), or
 * null when it has few enough routine events to be read whole. Shared by foldMinute, which counts
 * the events it is given, and the page's query, which counts a busy hour's routine order events in
 * SQL without reading them (lib/queries/incidents.ts).
 */
export function foldCounted(notable: IncidentEvent[], counts: ReadonlyMap<string, RoutineCount>, over = FOLD_ROUTINE_OVER): FoldedMinute | null {
  let routine = 0;
  for (const c of counts.values()) routine += c.n;
  if (routine <= over) return null;
  return { notable, routine, ...routineKindsOf(counts.values()) };
}

/** Counts by source and kind, most frequent first, and their words: "14 order intents". */
function routineKindsOf(counts: Iterable<RoutineCount>): Pick<FoldedMinute, "routineKinds" | "counts"> {
  const sorted = [...counts].map((c) => ({ ...c })).sort((a, b) => b.n - a.n || (a.source + a.kind < b.source + b.kind ? -1 : 1));
  return { routineKinds: sorted.map((c) => ({ words: words(c.source, c.kind, c.n), n: c.n })), counts: sorted };
}

/** Adds `n` routine events of (source, kind) to a minute's counts. */
export function countRoutine(counts: Map<string, RoutineCount>, source: string, kind: string, n = 1): void {
  const key = `${source} ${kind}`;
  const c = counts.get(key);
  if (c) c.n += n;
  else counts.set(key, { source, kind, n });
}

/**
 * The minute folded, or null when it has few enough routine events to be read whole. `unchanged`
 * (from unchangedDrifts over the whole window) counts as routine too.
 */
export function foldMinute(events: readonly IncidentEvent[], over = FOLD_ROUTINE_OVER, unchanged: ReadonlySet<string> = new Set()): FoldedMinute | null {
  const notable: IncidentEvent[] = [];
  const counts = new Map<string, RoutineCount>();
  for (const e of events) {
    if (!isRoutine(e) && !unchanged.has(e.id)) notable.push(e);
    else countRoutine(counts, e.source, e.kind);
  }
  return foldCounted(notable, counts, over);
}

/** One minute of the page's timeline: its events shown (all of them, or a folded minute's notable ones) and how many it holds. */
export interface TimelineMinute {
  /** The minute's start (ms since the epoch); NaN for events whose time cannot be read. */
  start: number;
  /** Every event of the minute, shown or folded. */
  total: number;
  /** The events listed: the notable ones when `fold` is set (and the minute has a time), else all of them. */
  shown: IncidentEvent[];
  /** `shown` as the page lists it: a run of events that say the same thing is one line (lib/incidents/lines.ts). */
  lines: RepeatLine[];
  fold: FoldedMinute | null;
}

/**
 * A minute of the timeline from what it shows: both reads of the page (foldTimeline, and the count
 * in SQL) build it here. `unchanged`: the window's unchanged drift cycles (unchangedDrifts), routine
 * as in foldMinute.
 */
export function timelineMinute(
  start: number,
  total: number,
  shown: IncidentEvent[],
  fold: FoldedMinute | null,
  unchanged: ReadonlySet<string>,
): TimelineMinute {
  return { start, total, shown, lines: repeatLines(shown, (e) => isRoutine(e) || unchanged.has(e.id)), fold };
}

/** The minute an event's time falls in, as the page groups them (NaN for an unreadable time). */
export const minuteOf = (at: string): number => {
  const t = Date.parse(at);
  return Number.isNaN(t) ? NaN : Math.floor(t / MINUTE_MS) * MINUTE_MS;
};

/**
 * The window minute by minute, as the page shows it: consecutive events of the same minute
 * together, each busy minute folded (foldMinute, with the drift cycles unchanged over the whole
 * window counted as routine), and notable events said again one line (repeatLines).
 */
export function foldTimeline(events: readonly IncidentEvent[], over = FOLD_ROUTINE_OVER): TimelineMinute[] {
  const unchanged = unchangedDrifts(events);
  const groups: { start: number; events: IncidentEvent[] }[] = [];
  for (const e of events) {
    const start = minuteOf(e.at);
    const last = groups.at(-1);
    if (last && (last.start === start || (Number.isNaN(start) && Number.isNaN(last.start)))) last.events.push(e);
    else groups.push({ start, events: [e] });
  }
  return groups.map((g) => {
    const fold = foldMinute(g.events, over, unchanged);
    // Events whose time cannot be read have no minute to open from the export: listed whole.
    return timelineMinute(g.start, g.events.length, fold && !Number.isNaN(g.start) ? fold.notable : g.events, fold, unchanged);
  });
}

/** What the page counts over the whole window: the figures above its timeline. */
export interface TimelineTallies {
  trips: number;
  /** Positions (a journal's bot and symbol) that were unknown in at least one cycle of the window. */
  unknownPositions: number;
  /** Those positions, first found first, each with the number of cycles that found it. */
  unknownPositionsFound: { botId: string | null; symbol: string; journal?: string; cycles: number }[];
  unknownOrders: number;
  operatorActions: number;
}

/**
 * The tallies of these events (every trip, drift, emergency order and operator event of the
 * window: none of them is ever routine). A halt or clear made in the console is one operator
 * action, though the journal holds its breaker event and its audit entry (consoleActionAudits).
 */
export function tallyEvents(all: Iterable<IncidentEvent>): TimelineTallies {
  const events = [...all];
  const t: TimelineTallies = { trips: 0, unknownPositions: 0, unknownPositionsFound: [], unknownOrders: 0, operatorActions: 0 };
  const unknown = new Map<string, TimelineTallies["unknownPositionsFound"][number]>();
  for (const e of events) {
    if (e.source === "breaker" && e.kind === "trip") t.trips += 1;
    for (const d of e.drifts) {
      if (d.drift !== "unknown_position") continue;
      const key = JSON.stringify([e.journal ?? null, e.botId, d.symbol]);
      const found = unknown.get(key);
      if (found) found.cycles += 1;
      else unknown.set(key, { botId: e.botId, symbol: d.symbol, ...(e.journal ? { journal: e.journal } : {}), cycles: 1 });
    }
    if (e.source === "order" && e.severity === "emergency") t.unknownOrders += 1;
    if (e.operator) t.operatorActions += 1;
  }
  t.operatorActions -= consoleActionAudits(events).size;
  t.unknownPositionsFound = [...unknown.values()];
  t.unknownPositions = unknown.size;
  return t;
}

/**
 * The timeline as the page lays it out: each minute on its own, except runs of consecutive folded
 * minutes in which nothing is notable, which are one block counting their routine events together.
 * A busy hour without trouble was sixty boxes saying "68 routine events folded", 11,000 px on a
 * phone; what the reviewer looks for is between them. `index` is the minute's place in `minutes`;
 * `ownLine`: a minute the page has more to say about (a bot's silence starts there) stays on its own.
 */
export type TimelineBlock =
  | { kind: "minute"; minute: TimelineMinute; index: number }
  | ({ kind: "quiet"; minutes: { minute: TimelineMinute; index: number }[]; total: number; routine: number } & Pick<FoldedMinute, "routineKinds" | "counts">);

/** A run needs this many quiet minutes; a single one stays a minute of its own. */
export const QUIET_RUN_MIN = 2;

const quietMinute = (m: TimelineMinute) => m.fold !== null && m.fold.notable.length === 0 && m.shown.length === 0 && !Number.isNaN(m.start);

export function timelineBlocks(
  minutes: readonly TimelineMinute[],
  min = QUIET_RUN_MIN,
  ownLine: (m: TimelineMinute) => boolean = () => false,
): TimelineBlock[] {
  const quiet = (m: TimelineMinute) => quietMinute(m) && !ownLine(m);
  const blocks: TimelineBlock[] = [];
  let run: { minute: TimelineMinute; index: number }[] = [];
  const flush = () => {
    if (run.length >= min) {
      const counts = new Map<string, RoutineCount>();
      for (const { minute } of run) for (const c of minute.fold!.counts) countRoutine(counts, c.source, c.kind, c.n);
      blocks.push({
        kind: "quiet",
        minutes: run,
        total: run.reduce((n, r) => n + r.minute.total, 0),
        routine: run.reduce((n, r) => n + r.minute.fold!.routine, 0),
        ...routineKindsOf(counts.values()),
      });
    } else for (const r of run) blocks.push({ kind: "minute", ...r });
    run = [];
  };
  minutes.forEach((minute, index) => {
    const last = run.at(-1);
    if (quiet(minute) && (!last || minute.start === last.minute.start + MINUTE_MS)) run.push({ minute, index });
    else {
      flush();
      if (quiet(minute)) run.push({ minute, index });
      else blocks.push({ kind: "minute", minute, index });
    }
  });
  flush();
  return blocks;
}
