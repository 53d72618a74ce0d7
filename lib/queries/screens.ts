import "server-only";
/**
 * One loader per screen, called by both its page (app/…/page.tsx, for the first paint) and its
 * polling route (app/api/…/route.ts), so the two can never disagree on what the screen shows or
 * on whose names a reader sees. Each takes the ReadContext of lib/queries/read.ts plus what the
 * URL chose, and returns the view as this reader may see it.
 */
import { forReader } from "../auth/actor-names";
import type { IncidentFilters, IncidentRef } from "../url-state/incidents";
import type { SymbolRange } from "../url-state/symbol";
import { listAudit } from "./audit";
import { getBotClearView } from "./bot-clear";
import { getBreakerBoard } from "./breakers";
import { listDoubtfulOrders } from "./doubtful";
import { DoubtfulSizes } from "./drift-explained";
import type { JournalQuery } from "../db/query";
import { CLEAR_OF_SQL, TRIP_SQL, queryIncidentList, queryIncidentStory } from "./incident-story";
import type { TripFact } from "../incidents/story";
import {
  chooseIncidentWindow,
  queryFoldedIncidentTimeline,
  queryIncidentBots,
  queryIncidentTimeline,
  queryIncidentTimelineEvents,
  queryIncidentWindow,
  queryWindowActivity,
  type ResolvedWindow,
  type TimelineOptions,
} from "./incidents";
import { getOverview } from "./overview";
import { haltSignalStart, type HaltSignalData } from "../live/halt-signal";
import { clashError, consoleSources, type ConsoleSource, type SourceSet } from "../db/console";
import {
  mergeAudits,
  mergeBreakerBoards,
  mergeDoubtful,
  mergeIncidentBots,
  mergeIncidentExports,
  mergeIncidentLists,
  mergeIncidentWindows,
  mergeOverviews,
  health,
  type SourceHealth,
  type WithSources,
} from "./fleet";
import { anyEngine, readBotScreen, readFleet, readScreen, withNotices, type QueryContext, type ScreenRead, type SourcePart } from "./read";
import { getSymbolState } from "./symbol";
import { readSymbolChart } from "./symbol-chart";

/**
 * A loader of a screen that reads every engine (lib/queries/read.ts anyEngine). `names` false: a
 * reader who is not signed in; every operator's name becomes its role (lib/auth/actor-names.ts).
 */
type AnyLoader<P = object> = QueryContext & { names: boolean } & P;

/** `/` and GET /api/overview. */
export async function loadOverview({ q, config, now, names }: AnyLoader) {
  const [overview, doubtful] = await Promise.all([
    getOverview({
      db: q,
      now,
      heartbeatStaleMs: config.heartbeatStaleMs,
      reconciliationStaleMs: config.reconciliationStaleMs,
      doubtfulGraceMs: config.doubtfulGraceMs,
    }),
    DoubtfulSizes.read({ db: q, now, graceMs: config.doubtfulGraceMs }),
  ]);
  const lines = overview.lines.map((l) => (l.drift === "none" ? l : { ...l, explainedBy: doubtful.explain(l.botId, l.symbol, l) }));
  return forReader({ ...overview, lines }, names);
}

/** `/bots/[botId]` and GET /api/bots/[botId]/clear: null when the journal has no such bot. */
export async function loadBotClear({ q, config, now, names, botId }: AnyLoader<{ botId: string }>) {
  return forReader(
    await getBotClearView({
      db: q,
      botId,
      now,
      heartbeatStaleMs: config.heartbeatStaleMs,
      reconciliationStaleMs: config.reconciliationStaleMs,
      doubtfulGraceMs: config.doubtfulGraceMs,
      twoPersonClear: config.twoPersonClear,
    }),
    names,
  );
}

/** `/breakers` and GET /api/breakers. */
export async function loadBreakerBoard({ q, config, now, names, bot, before }: AnyLoader<{ bot: string | null; before: number | null }>) {
  const { heartbeatStaleMs, reconciliationStaleMs } = config;
  return forReader(await getBreakerBoard({ db: q, now, heartbeatStaleMs, reconciliationStaleMs, bot, before }), names);
}

/** `/doubtful` and GET /api/doubtful. */
export async function loadDoubtfulOrders({ q, config, now, names, botId }: AnyLoader<{ botId: string | null }>) {
  return forReader(await listDoubtfulOrders({ db: q, now, graceMs: config.doubtfulGraceMs, botId }), names);
}

/** `/bots/[botId]/symbols/[symbol]` and GET /api/bots/[botId]/symbols/[symbol]. */
export async function loadSymbolState({
  q,
  config,
  now,
  names,
  botId,
  symbol,
  ordersLimit,
}: AnyLoader<{ botId: string; symbol: string; ordersLimit: number }>) {
  const state = await getSymbolState({
    db: q,
    botId,
    symbol,
    now,
    ordersLimit,
    heartbeatStaleMs: config.heartbeatStaleMs,
    reconciliationStaleMs: config.reconciliationStaleMs,
    doubtfulGraceMs: config.doubtfulGraceMs,
  });
  if (!state.found || !state.line || state.line.drift === "none") return forReader(state, names);
  const explainedBy = (await DoubtfulSizes.read({ db: q, now, graceMs: config.doubtfulGraceMs, botId })).explain(botId, symbol, state.line);
  return forReader({ ...state, line: { ...state.line, explainedBy } }, names);
}

/** The symbol page's chart and GET /api/bots/[botId]/symbols/[symbol]/chart. */
export async function loadSymbolChart({ q, now, names, botId, symbol, range }: AnyLoader<{ botId: string; symbol: string; range: SymbolRange }>) {
  return forReader(await readSymbolChart({ db: q, botId, symbol, range, now }), names);
}

/** The bots the incident form offers. */
export function loadIncidentBots({ q }: Pick<QueryContext, "q">) {
  return queryIncidentBots(q);
}

type WindowArgs = { from: string | null; to: string | null; filters: IncidentFilters; limit?: number };

/** The incident window resolved from the request, and its timeline read by `read`. */
const incidentWindowWith =
  <T>(read: (q: JournalQuery, options: TimelineOptions) => Promise<T>) =>
  async ({ q, now, names, from, to, filters, limit }: AnyLoader<WindowArgs>) => {
    const window = await queryIncidentWindow(q, now, from, to);
    return { window, timeline: await read(q, { window, filters, limit, names }) };
  };

/** `/incidents`: the window resolved, and what happened in it, minute by minute, busy minutes folded. */
export const loadIncidentWindow = incidentWindowWith(queryFoldedIncidentTimeline);

/** GET /api/incidents/export: the same window, its events worded as the file is written (queryIncidentTimeline). */
export const loadIncidentExport = incidentWindowWith(queryIncidentTimeline);

/** `/incidents/[id]` and GET /api/incidents/[id]/postmortem: one incident told, as this reader may see it; null when no trip has this id. */
export async function loadIncidentStory({ q, now, names, id, journal }: AnyLoader<{ id: number; journal?: string }>) {
  return forReader(await queryIncidentStory(q, { id, now, names, journal }), names);
}

/** `/incidents` (the list; no polling route: incidents are reviewed, not watched). */
export async function loadIncidentList({ q, now, names, bot }: AnyLoader<{ bot: string | null }>) {
  const [list, bots] = [await queryIncidentList(q, { bot, now }), await queryIncidentBots(q)];
  return forReader({ ...list, bots }, names);
}

/** `/audit` (no polling route: the log is read on demand). */
export async function loadAudit({ q, names, actor, action, before }: AnyLoader<{ actor: string | null; action: string | null; before: number | null }>) {
  return forReader(await listAudit({ db: q, actor, action, before }), names);
}

/**
 * The screens as every page, route and live view reads them: a fleet screen from every journal,
 * merged (lib/queries/fleet.ts); a bot's screen from the bot's own journal. `set`: the configured
 * journals unless a live watcher passes its own.
 */
export function readOverview({ names, set }: { names: boolean; set?: SourceSet }) {
  return readFleet(
    anyEngine((ctx) => loadOverview({ ...ctx, names })),
    (parts, s) => mergeOverviews(parts, s, names),
    set,
  ).then((read) => withNotices(read));
}

/**
 * The halt signal's first read, rendered into every page's HTML by the root layout (lib/live/halt-signal.ts):
 * null when the journal cannot be read (the page says why; the signal learns it from its own poll).
 */
export async function readHaltSignalStart({ names }: { names: boolean }): Promise<HaltSignalData | null> {
  const read = await readOverview({ names });
  return read.ok ? haltSignalStart(read.data) : null;
}

export function readDoubtfulOrders({ names, botId, set }: { names: boolean; botId: string | null; set?: SourceSet }) {
  const load = anyEngine((ctx) => loadDoubtfulOrders({ ...ctx, names, botId }));
  return (botId === null ? readFleet(load, (parts, s) => mergeDoubtful(parts, s, names), set) : readBotScreen(botId, load, set)).then((read) =>
    withNotices(read),
  );
}

export function readBreakerBoard({ names, bot, before, set }: { names: boolean; bot: string | null; before: number | null; set?: SourceSet }) {
  const load = anyEngine((ctx) => loadBreakerBoard({ ...ctx, names, bot, before }));
  return (bot === null ? readFleet(load, (parts, s) => mergeBreakerBoards(parts, s, names), set) : readBotScreen(bot, load, set)).then((read) =>
    withNotices(read),
  );
}

export function readBotClear({ names, botId, set }: { names: boolean; botId: string; set?: SourceSet }) {
  return readBotScreen(
    botId,
    anyEngine((ctx) => loadBotClear({ ...ctx, names, botId })),
    set,
  ).then((read) =>
    withNotices(
      // With several journals the page names the bot's own (what to check when it goes wrong), and its
      // halt's incident id carries that name.
      read.ok && read.data && read.source ? { ...read, data: { ...read.data, source: read.source } } : read,
    ),
  );
}

export function readSymbolState({
  names,
  botId,
  symbol,
  ordersLimit,
  set,
}: {
  names: boolean;
  botId: string;
  symbol: string;
  ordersLimit: number;
  set?: SourceSet;
}) {
  return readBotScreen(
    botId,
    anyEngine((ctx) => loadSymbolState({ ...ctx, names, botId, symbol, ordersLimit })),
    set,
  ).then((read) => withNotices(read));
}

/**
 * `/audit`: every journal's chain merged (its newest page each), or one journal's own chain, paged,
 * when `source` names one of several.
 */
export async function readAudit({
  names,
  actor,
  action,
  before,
  source,
  set,
}: {
  names: boolean;
  actor: string | null;
  action: string | null;
  before: number | null;
  source: string | null;
  set?: SourceSet;
}) {
  const load = anyEngine((ctx) => loadAudit({ ...ctx, names, actor, action, before }));
  const all = set ?? consoleSources();
  const one = all.several ? all.sources.find((s) => s.name === source) : undefined;
  if (one) {
    const read = await readScreen(load, one.journal);
    return read.ok ? { ...read, data: { ...read.data, entries: read.data.entries.map((e) => ({ ...e, source: one.name })) } } : read;
  }
  return readFleet(load, (parts, s) => mergeAudits(parts, s, names), all);
}

/**
 * The journals an incident screen reads: every one, or, for one bot, the journal that holds it (a
 * bot no readable journal has: every one, which all answer "nothing"; one two journals hold, or
 * whose journal cannot be read now: that error).
 */
async function incidentSources(
  bot: string | null,
  set: SourceSet,
): Promise<{ ok: true; sources: readonly ConsoleSource[] } | (ScreenRead<never> & { ok: false })> {
  if (bot === null) return { ok: true, sources: set.sources };
  const place = await set.placeBotRead(bot);
  switch (place.kind) {
    case "found":
      return { ok: true, sources: [place.source] };
    case "none":
      return { ok: true, sources: set.sources };
    case "unavailable":
      return { ok: false, error: place.error, source: place.source.name };
    case "clash":
      return { ok: false, error: clashError(bot, place.sources) };
  }
}

/** The incident form's bots, from every journal. */
export function readIncidentBots({ set }: { set?: SourceSet } = {}) {
  return readFleet(anyEngine(loadIncidentBots), (parts) => mergeIncidentBots(parts), set);
}

/** `/incidents`: every journal's incidents, newest first (one bot's from its journal). */
export async function readIncidentList({
  names,
  bot,
  set,
}: {
  names: boolean;
  bot: string | null;
  set?: SourceSet;
}): Promise<ScreenRead<WithSources<Awaited<ReturnType<typeof loadIncidentList>>>>> {
  const all = set ?? consoleSources();
  const load = anyEngine((ctx) => loadIncidentList({ ...ctx, names, bot }));
  if (!all.several) return readScreen(load, all.sources[0]!.journal);
  const picked = await incidentSources(bot, all);
  if (!picked.ok) return picked;
  const read = await readFleet(load, (parts) => mergeIncidentLists(parts, names), all, picked.sources);
  if (!read.ok || picked.sources.length === all.sources.length) return read;
  // One bot's list reads its journal alone; the filter still offers every journal's bots.
  const bots = await readIncidentBots({ set: all });
  return bots.ok ? { ...read, data: { ...read.data, bots: bots.data } } : read;
}

/**
 * A window of several journals: its default chosen over all of them (the last hour if any journal
 * wrote in it, else the hour up to the latest thing any holds), then each one's events read for
 * that one window and merged by `merge`.
 */
async function readIncidentWindowWith<X, M>(
  args: WindowArgs & { names: boolean; set?: SourceSet },
  single: (ctx: QueryContext) => Promise<{ window: ResolvedWindow; timeline: WithSources<X> }>,
  each: (q: JournalQuery, options: TimelineOptions) => Promise<M>,
  merge: (parts: SourcePart<M>[]) => WithSources<X>,
): Promise<ScreenRead<{ window: ResolvedWindow; timeline: WithSources<X> }>> {
  const all = args.set ?? consoleSources();
  if (!all.several) return readScreen(anyEngine(single), all.sources[0]!.journal);
  const picked = await incidentSources(args.filters.bot, all);
  if (!picked.ok) return picked;
  const now = new Date();
  let window: ResolvedWindow;
  if (args.from !== null && args.to !== null) window = { from: args.from, to: args.to, defaulted: null };
  else {
    const activity = await readFleet(
      anyEngine((ctx) => queryWindowActivity(ctx.q, now)),
      (parts) => parts,
      all,
      picked.sources,
    );
    if (!activity.ok) return activity;
    // A journal that cannot be read may have written in the last hour: the default stays there
    // (its banner says what is missing) rather than jumping to an older hour the others hold.
    window = chooseIncidentWindow(
      now,
      activity.data.map((p) => (p.ok ? p.data : { recent: true, latest: null })),
    );
  }
  const options = { window, filters: args.filters, limit: args.limit, names: args.names };
  const read = await readFleet(
    anyEngine((ctx) => each(ctx.q, options)),
    (parts) => merge(parts),
    all,
    picked.sources,
  );
  return read.ok ? { ...read, data: { window, timeline: read.data } } : read;
}

/** `/incidents?from&to`: the window of every journal (one bot's of its own), minute by minute, busy minutes folded. */
export function readIncidentWindow(args: WindowArgs & { names: boolean; set?: SourceSet }) {
  return readIncidentWindowWith(
    args,
    (ctx) => loadIncidentWindow({ ...ctx, ...args }),
    queryIncidentTimelineEvents,
    (parts) => mergeIncidentWindows(parts, args.names),
  );
}

/** GET /api/incidents/export: the same window, its events merged and worded as the file is written. */
export function readIncidentExport(args: WindowArgs & { names: boolean; set?: SourceSet }) {
  return readIncidentWindowWith(
    args,
    (ctx) => loadIncidentExport({ ...ctx, ...args }),
    queryIncidentTimeline,
    (parts) => mergeIncidentExports(parts, args.names),
  );
}

/** One of several journals' read, its notices naming it as the merged screens' do ("alpha: the journal was away …"). */
const named = <T extends { journal: { file: string; warnings: string[] } }>(read: T, source: ConsoleSource): T => ({
  ...read,
  journal: { ...read.journal, warnings: read.journal.warnings.map((w) => `${source.name}: ${w}`) },
});

/** Another journal's incident of the same number, offered when a bare number names several. */
export interface IncidentChoice {
  journal: string;
  botId: string;
  startedAt: string;
  cause: string;
}

/** An incident id that is a clear's number: the clear, and the incident (trip) it ended, in its journal (null: the one journal). */
export interface ClearPointer {
  journal: string | null;
  clearId: number;
  botId: string;
  clearedAt: string;
  /** Null when no trip of the bot precedes the clear (a journal that lost it, or a clear written by hand). */
  tripId: number | null;
}

type StoryRead = ScreenRead<{
  view: Awaited<ReturnType<typeof loadIncidentStory>> | null;
  choices: IncidentChoice[];
  unread: SourceHealth[];
  clears: ClearPointer[];
}>;

/**
 * `/incidents/[id]`: one incident, as readIncidentStoryOf reads it; and where no trip has the
 * number but a clear does (breaker events share one numbering, and an export names them
 * `breaker-<n>`), the clear and the incident it ended, so the page points there instead of saying
 * only "no such incident".
 */
export async function readIncidentStory(args: { names: boolean; ref: IncidentRef; set?: SourceSet }): Promise<StoryRead> {
  const read = await readIncidentStoryOf(args);
  if (!read.ok) return read;
  if (read.data.view !== null || read.data.choices.length > 0) return { ...read, data: { ...read.data, clears: [] } };
  const all = args.set ?? consoleSources();
  const sources = all.sources.filter((s) => args.ref.journal === null || s.name === args.ref.journal);
  const clears: ClearPointer[] = [];
  for (const source of sources) {
    const found = await readScreen(
      anyEngine(({ q }) => q.get<Omit<ClearPointer, "journal">>(CLEAR_OF_SQL, [args.ref.trip])),
      source.journal,
    );
    // A journal that cannot be read is already named (unread) or is the page's error.
    if (found.ok && found.data) clears.push({ ...found.data, journal: all.several ? source.name : null });
  }
  return { ...read, data: { ...read.data, clears } };
}

/**
 * `/incidents/[id]`: one incident. With several journals its id names the journal (`alpha-12`); a
 * bare number is looked up in every journal, and names the one incident that has it, or a choice
 * when several do. `view` null and no choices: no such incident in any journal that could be read.
 * `unread`: for a bare number, the journals that could not be read, any of which may hold an
 * incident of that number too (so the one found is not known to be the only one).
 */
async function readIncidentStoryOf({
  names,
  ref,
  set,
}: {
  names: boolean;
  ref: IncidentRef;
  set?: SourceSet;
}): Promise<ScreenRead<{ view: Awaited<ReturnType<typeof loadIncidentStory>> | null; choices: IncidentChoice[]; unread: SourceHealth[] }>> {
  const all = set ?? consoleSources();
  const load = (journal?: string) => anyEngine((ctx) => loadIncidentStory({ ...ctx, names, id: ref.trip, journal }));
  const none = { ok: true as const, data: { view: null, choices: [], unread: [] }, journal: { file: "", warnings: [] } };
  if (!all.several) {
    if (ref.journal !== null && ref.journal !== all.sources[0]!.name) return none;
    const read = await readScreen(load(), all.sources[0]!.journal);
    return read.ok ? { ...read, data: { view: read.data, choices: [], unread: [] } } : read;
  }
  if (ref.journal !== null) {
    const source = all.sources.find((s) => s.name === ref.journal);
    if (!source) return none;
    const read = await readScreen(load(source.name), source.journal);
    return read.ok ? { ...named(read, source), data: { view: read.data, choices: [], unread: [] } } : { ...read, source: source.name };
  }
  // Which journals have this trip: one row each (the story, its chart and timeline, only for the one shown).
  const reads = await Promise.all(
    all.sources.map(async (source) => ({
      source,
      read: await readScreen(
        anyEngine(({ q }) => q.get<TripFact>(TRIP_SQL, [ref.trip])),
        source.journal,
      ),
    })),
  );
  const parts: SourcePart<TripFact | undefined>[] = reads.map(({ source, read }) =>
    read.ok ? { source, ok: true, data: read.data } : { source, ok: false, error: read.error },
  );
  const unread = health(parts, names).filter((h) => !h.ok);
  const found = parts.flatMap((p) => (p.ok && p.data ? [{ source: p.source, trip: p.data }] : []));
  if (found.length === 1 && unread.length === 0) {
    const source = found[0]!.source;
    const read = await readScreen(load(source.name), source.journal);
    if (!read.ok) return { ...read, source: source.name };
    return { ...named(read, source), data: { view: read.data, choices: [], unread } };
  }
  if (found.length > 0)
    return {
      ok: true,
      data: {
        view: null,
        choices: forReader(
          found.map((f) => ({ journal: f.source.name, botId: f.trip.botId, startedAt: f.trip.at, cause: f.trip.reason })),
          names,
        ),
        unread,
      },
      journal: { file: "", warnings: [] },
    };
  // In no journal read; one that cannot be read may hold it: say that rather than "no such incident".
  const failed = reads.find((r) => !r.read.ok);
  if (failed && !failed.read.ok) return { ok: false, error: failed.read.error, source: failed.source.name };
  return none;
}
