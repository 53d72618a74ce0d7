/**
 * When several events are one line for a reader: the same thing said again (a lookup that fails
 * every 2.5 s), and one console action written twice (a Halt now's trip, or an order resolved by
 * hand, and its audit entry). One home for both rules, used by the story (collapse.ts: repeats over
 * the whole incident) and the window minute by minute (fold.ts: repeats one under the other in a
 * minute, and its tallies).
 * Pure; every event stays on the line that tells it, so nothing is lost and every count counts it.
 */
import type { IncidentEvent } from "./events";

/**
 * What makes two events the same line: their journal, source, kind, bot, order, actor, outcome and
 * words (an attempt number aside: "no reply to … (attempt 3)" is the same timeout said again).
 */
export function sameEventKey(e: IncidentEvent): string {
  const words = e.summary.replace(/\(attempt \d+\)/g, "").replace(/\s+/g, " ");
  return JSON.stringify([e.journal ?? null, e.source, e.kind, e.botId, e.clientOrderId, e.actor, e.outcome, words]);
}

/**
 * A line's count in words, as the window, the story and its post-mortem write it: a drift's line
 * counts the cycles that saw it ("×34 cycles"), any other the events that said the same ("×37");
 * "×34" beside "×37" read as one kind of count to a try-out. Empty for a line of one.
 */
export function repeatWords(line: { event: IncidentEvent; count: number }): string {
  if (line.count <= 1) return "";
  const n = line.count.toLocaleString("en-US");
  return line.event.source === "reconciliation" && line.event.kind === "drift" ? `×${n} cycles` : `×${n}`;
}

/**
 * A line's words: its first event's, without the attempt number when the line holds several
 * ("no reply to sell 97.9 SOLUSDT: timed out ×2", where "(attempt 1) … ×2" read as the first
 * attempt twice, a try-out). Each event keeps its own words where it is listed one by one.
 */
export function lineSummary(line: { event: IncidentEvent; count: number }): string {
  return line.count > 1 ? line.event.summary.replace(/ \(attempt \d+\)/g, "") : line.event.summary;
}

/** The breaker event each applied console action writes in the transaction of its audit entry. */
const BREAKER_ACTIONS: Readonly<Record<string, string>> = { halt_bot: "trip", clear_halt: "clear", approve_clear_halt: "clear" };

const actionKey = (e: IncidentEvent, kind: string) => JSON.stringify([e.journal ?? null, e.botId, e.at, e.actor, kind]);
const orderActionKey = (e: IncidentEvent, clientOrderId: string) => JSON.stringify([e.journal ?? null, e.at, e.actor, clientOrderId]);

/**
 * The audit entries that record a journal event of these events, each by the id of that event: the
 * console's Halt now, clear or approved clear writes the trip or clear and its audit entry in one
 * transaction, at one time, by one person, and so does its resolution of an order (the order's
 * event, by the operator, and the audit entry aimed at the order's id). A reader would otherwise
 * read (and a tally count) one action twice ("BREAKER TRIPPED by operator:ana: …" and
 * "operator:ana: Halt now on alpha: applied"). A halt or clear written without the console has no
 * audit entry, and a refused action no journal event: both stay lines of their own, and actions of
 * their own.
 */
export function consoleActionAudits(events: readonly IncidentEvent[]): Map<string, IncidentEvent> {
  const written = new Map<string, IncidentEvent>();
  for (const e of events) {
    if (!e.operator) continue;
    if (e.source === "breaker") written.set(actionKey(e, e.kind), e);
    else if (e.source === "order" && e.clientOrderId !== null) written.set(orderActionKey(e, e.clientOrderId), e);
  }
  const out = new Map<string, IncidentEvent>();
  if (written.size === 0) return out;
  for (const e of events) {
    if (e.source !== "audit" || e.outcome !== "applied") continue;
    const kind = BREAKER_ACTIONS[e.kind];
    const event = kind !== undefined ? written.get(actionKey(e, kind)) : e.target !== null ? written.get(orderActionKey(e, e.target)) : undefined;
    if (event && !out.has(event.id)) out.set(event.id, e);
  }
  return out;
}

/** A line of a minute of the window: one event, or a run of events that say the same thing. */
export interface RepeatLine {
  /** The first of the run: its words, its anchor. */
  event: IncidentEvent;
  /** The events of the run after the first, in time order (each still listed, under the line). */
  repeats: IncidentEvent[];
  count: number;
  firstAt: string;
  lastAt: string;
  /** The audit entry of the console action that wrote this breaker or order event, told on its line (consoleActionAudits). */
  audit: IncidentEvent[];
}

/**
 * Events as the lines of a minute of the window: a bot's notable events that say the same thing
 * (sameEventKey) with no other notable event of that bot between them are one line, where the
 * first of them is, with its count and its first and last time. Each bot (of each journal) has its
 * runs: two bots drifting at once alternate cycle by cycle, and ended each other's runs (a
 * try-out's window of two bots was a row per cycle, 14,000 px on a phone). A routine event (`routine`:
 * a quiet minute lists its routine events too, a clean cycle every 15 s among a lookup failing
 * every 2.5 s) does not end a run: it joins its bot's run when it says the same thing (a drift
 * cycle unchanged from its drift's), or the routine line its bot's event before it went to when
 * that one says the same, and is a line of its own otherwise. A notable event that says something
 * else ends its bot's run, so each bot still reads in the order things went wrong. A console
 * action's audit entry is on its breaker event's line, as the story tells it. Every event is on
 * exactly one line.
 */
export function repeatLines(events: readonly IncidentEvent[], routine: (e: IncidentEvent) => boolean = () => false): RepeatLine[] {
  const audits = consoleActionAudits(events);
  const told = new Set([...audits.values()].map((a) => a.id));
  const lines: RepeatLine[] = [];
  type Run = { key: string; line: RepeatLine };
  // By bot: its open run of notable events, and the routine line its event before went to.
  const runs = new Map<string, Run>();
  const routineBefore = new Map<string, Run>();
  const join = (line: RepeatLine, e: IncidentEvent, audit: IncidentEvent | undefined) => {
    line.repeats.push(e);
    line.count += 1;
    line.lastAt = e.at;
    if (audit) line.audit.push(audit);
  };
  for (const e of events) {
    // On its breaker event's line, which comes first at their shared time.
    if (told.has(e.id)) continue;
    const audit = audits.get(e.id);
    const key = sameEventKey(e);
    const bot = JSON.stringify([e.journal ?? null, e.botId]);
    const line: RepeatLine = { event: e, repeats: [], count: 1, firstAt: e.at, lastAt: e.at, audit: audit ? [audit] : [] };
    const run = runs.get(bot);
    if (routine(e)) {
      // A drift cycle unchanged from the one before says what its drift's line says: on that line.
      // Routine events that say the same thing one after the other are one line too: a quiet minute
      // of a drift that began before it listed fifteen identical cycles one under the other (a try-out).
      const before = routineBefore.get(bot);
      if (run?.key === key) {
        join(run.line, e, audit);
        routineBefore.delete(bot);
      } else if (before?.key === key) join(before.line, e, audit);
      else {
        lines.push(line);
        routineBefore.set(bot, { key, line });
      }
      continue;
    }
    routineBefore.delete(bot);
    if (run?.key === key) join(run.line, e, audit);
    else {
      lines.push(line);
      runs.set(bot, { key, line });
    }
  }
  return lines;
}
