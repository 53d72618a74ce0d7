import "server-only";
/**
 * One loader per screen, called by both its page (app/…/page.tsx, for the first paint) and its
 * polling route (app/api/…/route.ts), so the two can never disagree on what the screen shows or
 * on whose names a reader sees. Each takes the ReadContext of lib/queries/read.ts plus what the
 * URL chose, and returns the view as this reader may see it.
 */
import { forReader } from "../auth/actor-names";
import type { IncidentFilters } from "../url-state/incidents";
import type { SymbolRange } from "../url-state/symbol";
import { listAudit } from "./audit";
import { getBotClearView } from "./bot-clear";
import { getBreakerBoard } from "./breakers";
import { listDoubtfulOrders } from "./doubtful";
import { DoubtfulSizes } from "./drift-explained";
import { getIncidentStory, listIncidents } from "./incident-story";
import { getFoldedIncidentTimeline, getIncidentTimeline, listIncidentBots, readIncidentTimeline, resolveIncidentWindow } from "./incidents";
import { getOverview } from "./overview";
import { consoleSources, type SourceSet } from "../db/console";
import { mergeAudits, mergeBreakerBoards, mergeDoubtful, mergeOverviews } from "./fleet";
import { anyEngine, readBotScreen, readFleet, readScreen, type QueryContext, type ReadContext } from "./read";
import { getSymbolState } from "./symbol";
import { readSymbolChart } from "./symbol-chart";

/** false: a reader who is not signed in; every operator's name becomes its role (lib/auth/actor-names.ts). */
type Loader<P = object> = Omit<ReadContext, "q"> & { names: boolean } & P;

/** A loader of a screen that reads every engine (lib/queries/read.ts anyEngine). */
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
export async function loadBreakerBoard({ q, now, names, bot, before }: AnyLoader<{ bot: string | null; before: number | null }>) {
  return forReader(await getBreakerBoard({ db: q, now, bot, before }), names);
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
export function loadIncidentBots({ db }: Pick<ReadContext, "db">) {
  return listIncidentBots({ db });
}

/** The incident window resolved from the request, and its timeline read by `read`. */
const incidentWindowWith =
  <T>(read: (p: Parameters<typeof getIncidentTimeline>[0]) => T) =>
  ({ db, now, names, from, to, filters, limit }: Loader<{ from: string | null; to: string | null; filters: IncidentFilters; limit?: number }>) => {
    const window = resolveIncidentWindow({ db, now, from, to });
    return { window, timeline: read({ db, window, filters, limit, names }) };
  };

/** `/incidents`: the window resolved, and what happened in it, minute by minute, busy minutes folded. */
export const loadIncidentWindow = incidentWindowWith(getFoldedIncidentTimeline);

/** GET /api/incidents/export: the same window, its events worded as the file is written (readIncidentTimeline). */
export const loadIncidentExport = incidentWindowWith(readIncidentTimeline);

/** `/incidents/[id]` and GET /api/incidents/[id]/postmortem: one incident told, as this reader may see it; null when no trip has this id. */
export function loadIncidentStory({ db, now, names, id }: Loader<{ id: number }>) {
  return forReader(getIncidentStory({ db, id, now, names }), names);
}

/** `/incidents` (the list; no polling route: incidents are reviewed, not watched). */
export function loadIncidentList({ db, now, names, bot }: Loader<{ bot: string | null }>) {
  return forReader({ ...listIncidents({ db, bot, now }), bots: listIncidentBots({ db }) }, names);
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
  );
}

export function readDoubtfulOrders({ names, botId, set }: { names: boolean; botId: string | null; set?: SourceSet }) {
  const load = anyEngine((ctx) => loadDoubtfulOrders({ ...ctx, names, botId }));
  return botId === null ? readFleet(load, (parts, s) => mergeDoubtful(parts, s, names), set) : readBotScreen(botId, load, set);
}

export function readBreakerBoard({ names, bot, before, set }: { names: boolean; bot: string | null; before: number | null; set?: SourceSet }) {
  const load = anyEngine((ctx) => loadBreakerBoard({ ...ctx, names, bot, before }));
  return bot === null ? readFleet(load, (parts, s) => mergeBreakerBoards(parts, s, names), set) : readBotScreen(bot, load, set);
}

export function readBotClear({ names, botId, set }: { names: boolean; botId: string; set?: SourceSet }) {
  return readBotScreen(
    botId,
    anyEngine((ctx) => loadBotClear({ ...ctx, names, botId })),
    set,
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
  );
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
