/**
 * When several events are one line for a reader: the same thing said again (a lookup that fails
 * every 2.5 s). One home for the rule, used by the story (collapse.ts: repeats over the whole
 * incident) and the window minute by minute (fold.ts: repeats one under the other in a minute).
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

/** A line of a minute of the window: one event, or a run of events that say the same thing. */
export interface RepeatLine {
  /** The first of the run: its words, its anchor. */
  event: IncidentEvent;
  /** The events of the run after the first, in time order (each still listed, under the line). */
  repeats: IncidentEvent[];
  count: number;
  firstAt: string;
  lastAt: string;
}

/**
 * Events as the lines of a minute of the window: notable events that say the same thing
 * (sameEventKey) with no other notable event between them are one line, where the first of them
 * is, with its count and its first and last time. A routine event (`routine`: a quiet minute lists
 * its routine events too, a clean cycle every 15 s among a lookup failing every 2.5 s) neither
 * joins nor ends a run: it stays a line of its own. A notable event that says something else ends
 * the run, so the minute still reads in the order things went wrong. Every event is on exactly one
 * line.
 */
export function repeatLines(events: readonly IncidentEvent[], routine: (e: IncidentEvent) => boolean = () => false): RepeatLine[] {
  const lines: RepeatLine[] = [];
  let run: { key: string; line: RepeatLine } | null = null;
  for (const e of events) {
    const line: RepeatLine = { event: e, repeats: [], count: 1, firstAt: e.at, lastAt: e.at };
    if (routine(e)) {
      lines.push(line);
      continue;
    }
    const key = sameEventKey(e);
    if (run && run.key === key) {
      run.line.repeats.push(e);
      run.line.count += 1;
      run.line.lastAt = e.at;
    } else {
      lines.push(line);
      run = { key, line };
    }
  }
  return lines;
}
