import "server-only";
/**
 * Where the screens read from several journals are merged: the one place that decides how bots,
 * lines, orders and breakers of different journals sit together, and what a journal that cannot
 * be read leaves on screen (its banner, and its bots as UNKNOWN: never a gap, never green). With
 * one journal every merge returns that journal's view unchanged.
 */
import type { SourceSet } from "../db/console";
import { journalProblemFor, type JournalProblemView } from "../http/journal-problem";
import { AUDIT_PAGE, type AuditView } from "./audit";
import type { BreakerBoard } from "./breakers";
import type { DoubtfulOrder } from "./doubtful";
import type { Overview, OverviewBot } from "./overview";
import type { SourcePart } from "./read";
import { formatUtc } from "../text/format";
import { inJournal, type IncidentEvent } from "../incidents/events";
import { foldTimeline, tallyEvents } from "../incidents/fold";
import { incidentsPerWeek } from "../incidents/story";
import { incidentStoryHref } from "../url-state/incidents";
import { INCIDENT_LIST_CAP, type IncidentList } from "./incident-story";
import { windowSilences, type FoldedIncidentTimeline, type IncidentTimeline, type LazyIncidentTimeline } from "./incidents";
import { mergePrunedHistories } from "./pruned-history";

/** One journal's state, on the screens of a console that reads several. */
export interface SourceHealth {
  name: string;
  ok: boolean;
  /** Why it cannot be read, as this reader may see it; null when it can. */
  problem: JournalProblemView | null;
}

export function health<T>(parts: SourcePart<T>[], names: boolean): SourceHealth[] {
  return parts.map((p) => ({ name: p.source.name, ok: p.ok, problem: p.ok ? null : journalProblemFor(p.error, { signedIn: names }) }));
}

/** A bot whose journal cannot be read: it is there, and nothing about it can be vouched for. */
function unknownBot(
  botId: string,
  source: string,
  problem: JournalProblemView,
  lastHalt: OverviewBot["lastKnownHalt"] | null,
  lastReadAt: string | null,
): OverviewBot {
  // Times of today as a time alone, as everywhere else on the page.
  const now = new Date();
  const cannot = `its journal (source ${source}) cannot be read: ${problem.problem}`;
  return {
    botId,
    source,
    exchange: "",
    clientIdPrefix: "",
    status: "unknown",
    // A halt is cleared only by a person through a journal the console can write: a bot halted when
    // its journal was last read is as good as halted, and the desk must keep seeing it.
    reasons: lastHalt
      ? [
          `HALTED when its journal was last read, at ${formatUtc(lastHalt.readAt, now)} (halted since ${formatUtc(lastHalt.since, now)}); nobody can tell now whether it still is`,
          cannot,
        ]
      : [cannot],
    // The journal's own notice says it cannot be read; the bot adds no alarm of its own.
    alarms: [],
    haltedAlso: null,
    ...(lastHalt ? { lastKnownHalt: lastHalt } : lastReadAt ? { lastReadAt } : {}),
    journalUnread: true,
    heartbeatAt: null,
    heartbeatAgeMs: null,
    breaker: null,
    lastReconciliation: null,
    lastCompared: null,
    notComparedWhy: null,
    doubtfulOrders: 0,
    oldestDoubtfulAt: null,
    newestDoubtful: [],
    symbolsInDrift: 0,
    unknownPositions: 0,
  };
}

const byBot = <T extends { botId: string }>(a: T, b: T) => (a.botId < b.botId ? -1 : a.botId > b.botId ? 1 : 0);

/** Bots that two readable journals both show: each a sentence for the alarms. */
function clashAlarms(set: SourceSet): string[] {
  return set.clashes();
}

/** The overview of every journal: bots and lines side by side, one alarm per journal that cannot be read. */
export function mergeOverviews(parts: SourcePart<Overview>[], set: SourceSet, names: boolean): Overview {
  for (const p of parts)
    if (p.ok) {
      set.rememberBots(
        p.source.name,
        p.data.bots.map((b) => b.botId),
      );
      set.rememberHalts(
        p.source.name,
        p.data.readAt,
        p.data.bots.flatMap((b) => (b.breaker?.halted ? [{ botId: b.botId, since: b.breaker.changedAt, reason: b.breaker.reason }] : [])),
      );
    }
  if (!set.several) return (parts[0] as { data: Overview }).data;
  const bots: OverviewBot[] = [];
  const lines: Overview["lines"] = [];
  const alarms: string[] = [];
  let readAt = "";
  const sources = health(parts, names);
  parts.forEach((p, i) => {
    if (p.ok) {
      bots.push(...p.data.bots.map((b) => ({ ...b, source: p.source.name })));
      lines.push(...p.data.lines);
      alarms.push(...p.data.alarms);
      readAt = readAt > p.data.readAt ? readAt : p.data.readAt;
      return;
    }
    const problem = sources[i]!.problem!;
    // The problem is said of the journal ("was deleted…", "cannot be read (EACCES…)"): after its
    // name, never inside a second "cannot be read (…)".
    alarms.push(`source ${p.source.name}: its journal ${problem.problem}. Its bots are UNKNOWN`);
    bots.push(
      ...set.knownBots(p.source.name).map((id) => unknownBot(id, p.source.name, problem, set.lastHalt(p.source.name, id), set.lastReadAt(p.source.name))),
    );
  });
  alarms.push(...clashAlarms(set));
  lines.sort((a, b) => byBot(a, b) || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  return { readAt, bots: bots.sort(byBot), lines, alarms, sources };
}

/** Doubtful orders of every journal, newest update first as in one journal. */
export function mergeDoubtful(parts: SourcePart<{ orders: DoubtfulOrder[]; total: number }>[], set: SourceSet, names: boolean) {
  if (!set.several) return (parts[0] as { data: { orders: DoubtfulOrder[]; total: number } }).data;
  const orders = parts.flatMap((p) => (p.ok ? p.data.orders : []));
  orders.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  const total = parts.reduce((n, p) => n + (p.ok ? p.data.total : 0), 0);
  return { orders, total, sources: health(parts, names) };
}

/** The breaker board of every journal: each bot's breaker and events, bots in id order. */
export function mergeBreakerBoards(parts: SourcePart<BreakerBoard>[], set: SourceSet, names: boolean): BreakerBoard {
  const first = parts.find((p) => p.ok) as { data: BreakerBoard };
  if (!set.several) return first.data;
  const bots = parts.flatMap((p) => (p.ok ? p.data.bots.map((b) => reviewedIn(b, p.source.name)) : [])).sort(byBot);
  return { ...first.data, bots, sources: health(parts, names) };
}

/**
 * A bot's trips with their review links, and its clears with their incident's, pointing at the event of its own journal: with several
 * journals the incident window names each event after its journal (`alpha/breaker-12`), and the
 * story's id names it too (`/incidents/alpha-12`), since every journal numbers its own rows.
 */
function reviewedIn(bot: BreakerBoard["bots"][number], journal: string): BreakerBoard["bots"][number] {
  const anchor = (href: string) => href.replace(/#(breaker|reconciliation)-/, `#${journal}/$1-`);
  return {
    ...bot,
    events: bot.events.map((e) =>
      e.kind === "trip"
        ? {
            ...e,
            incident: { ...e.incident, href: anchor(e.incident.href), storyHref: incidentStoryHref(e.id, journal) },
            cause: e.cause && { ...e.cause, href: anchor(e.cause.href) },
          }
        : { ...e, storyHref: e.tripId === null ? null : incidentStoryHref(e.tripId, journal) },
    ),
  };
}

/** An audit entry of a console that reads several journals: the journal whose chain holds it. */
export type FleetAuditEntry = AuditView["entries"][number] & { source?: string };

export type FleetAuditView = Omit<AuditView, "entries"> & {
  entries: FleetAuditEntry[];
  /** Each journal's chain, when the console reads several: its head, or why it cannot be read. */
  chains?: (SourceHealth & { head: AuditView["head"] | null })[];
};

/**
 * The audit pages of every journal, newest first: each journal keeps its own chain (an action is
 * audited in the journal it changed), so the merge shows the newest page of each side by side and
 * pages no further; one journal's page (its `source` chosen) pages down its own chain.
 */
export function mergeAudits(parts: SourcePart<AuditView>[], set: SourceSet, names: boolean): FleetAuditView {
  const first = parts.find((p) => p.ok) as { data: AuditView };
  if (!set.several) return first.data;
  const entries = parts
    .flatMap((p) => (p.ok ? p.data.entries.map((e) => ({ ...e, source: p.source.name })) : []))
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : a.source < b.source ? -1 : 1))
    .slice(0, AUDIT_PAGE);
  const union = (pick: (v: AuditView) => string[]) => [...new Set(parts.flatMap((p) => (p.ok ? pick(p.data) : [])))].sort();
  const chains = health(parts, names).map((h, i) => {
    const p = parts[i]!;
    return { ...h, head: p.ok ? p.data.head : null };
  });
  return { ...first.data, entries, actors: union((v) => v.actors), actions: union((v) => v.actions), nextBefore: null, chains };
}

/** The incident pages of several journals: each journal's health beside what the readable ones hold. */
export type WithSources<T> = T & { sources?: SourceHealth[] };

const RANK: Record<IncidentEvent["source"], number> = { reconciliation: 0, order: 1, breaker: 2, audit: 3 };

/**
 * The events of several journals, each list in timeline order, as one, each named after its
 * journal (lib/incidents/events.ts inJournal): by time, then as in one journal (the reconciliation,
 * the orders it moved, the trip, the audit entry), then in the order the journals are configured.
 * Lazy: the export writes each as it is merged.
 */
export function* mergeJournalEvents(lists: { journal: string; events: Iterable<IncidentEvent> }[]): Generator<IncidentEvent> {
  const heads = lists.map((l) => {
    const it = l.events[Symbol.iterator]();
    const first = it.next();
    return { journal: l.journal, it, next: first.done ? null : first.value };
  });
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const e = heads[i]!.next;
      if (e === null) continue;
      const b = best < 0 ? null : heads[best]!.next!;
      // Strictly earlier only: at a full tie the journal configured first goes first.
      if (b === null || e.at < b.at || (e.at === b.at && RANK[e.source] < RANK[b.source])) best = i;
    }
    if (best < 0) return;
    const h = heads[best]!;
    yield inJournal(h.next!, h.journal);
    const n = h.it.next();
    h.next = n.done ? null : n.value;
  }
}

/** The first readable part, for what every journal's read shares (the window, the filters). */
const firstRead = <T>(parts: SourcePart<T>[]) => (parts.find((p) => p.ok) as { data: T }).data;

/**
 * The incident window of several journals: their events merged (the first `limit` of them) and
 * folded minute by minute as one journal's are (lib/incidents/fold.ts), each event named after its
 * journal; a journal that cannot be read is a banner, never a quiet hour.
 */
export function mergeIncidentWindows(parts: SourcePart<IncidentTimeline>[], names: boolean): WithSources<FoldedIncidentTimeline> {
  const first = firstRead(parts);
  const read = parts.filter((p): p is SourcePart<IncidentTimeline> & { ok: true } => p.ok);
  const events: IncidentEvent[] = [];
  for (const e of mergeJournalEvents(read.map((p) => ({ journal: p.source.name, events: p.data.events })))) {
    if (events.length === first.limit) break;
    events.push(e);
  }
  const total = read.reduce((n, p) => n + p.data.events.length, 0);
  const capped = read.some((p) => p.data.capped) || total > first.limit;
  const pruned = mergePrunedHistories(read.map((p) => p.data.pruned));
  return {
    window: first.window,
    filters: first.filters,
    capped,
    limit: first.limit,
    pruned,
    count: events.length,
    minutes: foldTimeline(events),
    tallies: tallyEvents(events),
    lastAt: capped ? (events.at(-1)?.at ?? null) : null,
    countedInSql: false,
    silences: windowSilences(events, { window: first.window, filters: first.filters, capped, pruned }),
    sources: health(parts, names),
  };
}

/** The export of several journals: as mergeIncidentWindows, its events worded and merged as the file is written. */
export function mergeIncidentExports(parts: SourcePart<LazyIncidentTimeline>[], names: boolean): WithSources<LazyIncidentTimeline> {
  const first = firstRead(parts);
  const read = parts.filter((p): p is SourcePart<LazyIncidentTimeline> & { ok: true } => p.ok);
  const total = read.reduce((n, p) => n + p.data.count, 0);
  const count = Math.min(total, first.limit);
  return {
    window: first.window,
    filters: first.filters,
    capped: read.some((p) => p.data.capped) || total > first.limit,
    limit: first.limit,
    pruned: mergePrunedHistories(read.map((p) => p.data.pruned)),
    count,
    events: function* () {
      let n = 0;
      for (const e of mergeJournalEvents(read.map((p) => ({ journal: p.source.name, events: p.data.events() })))) {
        if (n++ === count) return;
        yield e;
      }
    },
    sources: health(parts, names),
  };
}

/** The incident lists of several journals, newest first, each incident named after its journal (its id is only unique there). */
export function mergeIncidentLists(parts: SourcePart<IncidentList & { bots: string[] }>[], names: boolean): WithSources<IncidentList & { bots: string[] }> {
  const read = parts.filter((p): p is SourcePart<IncidentList & { bots: string[] }> & { ok: true } => p.ok);
  const all = read
    .flatMap((p) => p.data.items.map((i) => ({ ...i, journal: p.source.name })))
    .sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : b.id - a.id));
  const items = all.slice(0, INCIDENT_LIST_CAP);
  return {
    items,
    weeks: incidentsPerWeek(items),
    capped: read.some((p) => p.data.capped) || all.length > INCIDENT_LIST_CAP,
    bots: mergeIncidentBots(read.map((p) => ({ ...p, data: p.data.bots }))),
    sources: health(parts, names),
  };
}

/** Every readable journal's bots, for the incident pages' bot filter. */
export function mergeIncidentBots(parts: SourcePart<string[]>[]): string[] {
  return [...new Set(parts.flatMap((p) => (p.ok ? p.data : [])))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
