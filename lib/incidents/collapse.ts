/**
 * An incident's timeline as a story reads it: every notable event once, an event repeated word for
 * word (a lookup that fails every 2.5 s for forty minutes) as one row with its count and its first
 * and last time, one console action written twice (a Halt now's trip and its audit entry) as one
 * row, and the routine rest (fills, clean cycles, unchanged drift cycles) counted on one line,
 * never listed and never counted as notable. Pure, over the events the window view reads.
 */
import type { IncidentEvent } from "./events";
import { formatAge, formatUtc } from "../text/format";
import { isRoutine, routineKindWords, unchangedDrifts } from "./fold";
import { consoleActionAudits, sameEventKey } from "./lines";

const MINUTE = 60_000;

export interface CollapsedRow {
  /** The first of the identical events: its words, its anchor. */
  event: IncidentEvent;
  count: number;
  firstAt: string;
  lastAt: string;
  /** A breaker event's own audit entry (the console's halt or clear that wrote it), told on its line rather than as a line of its own. */
  audit: IncidentEvent[];
}

export interface CollapsedTimeline {
  rows: CollapsedRow[];
  /** Routine events left out of `rows`, by what they are, most frequent first. */
  routine: { words: string; n: number }[];
  routineTotal: number;
}

export { sameEventKey };

export function collapseTimeline(events: readonly IncidentEvent[]): CollapsedTimeline {
  const unchanged = unchangedDrifts(events);
  const audits = consoleActionAudits(events);
  const told = new Set([...audits.values()].map((a) => a.id));
  const rows: CollapsedRow[] = [];
  const byKey = new Map<string, CollapsedRow>();
  const routine = new Map<string, { source: string; kind: string; n: number }>();
  let routineTotal = 0;
  const inDoubt = new Set<string>();
  for (const e of events) {
    // On its breaker event's line (below), whether that comes before or after it.
    if (told.has(e.id)) continue;
    // A drift cycle unchanged from the one before says the same words as its drift's line: counted
    // there, so "×113" is every cycle that saw the drift. Counted apart, a drift that went A, B, A
    // over 113 cycles read "×2" from its first to its last time (a try-out took it for a wrong count).
    const drifting = unchanged.has(e.id) ? byKey.get(sameEventKey(e)) : undefined;
    if (drifting) {
      drifting.count++;
      drifting.lastAt = e.at;
      continue;
    }
    // An order's send or status after its timeout or absent lookup is how it ended: never routine here
    // (a try-out's story said "1 order sent" among the routine counts and never how the retried order ended).
    if (e.source === "order" && e.clientOrderId !== null) {
      if (e.kind === "timeout" || e.kind === "lookup_absent") inDoubt.add(e.clientOrderId);
      else if (isRoutine(e) && (e.kind === "send" || e.kind === "status") && inDoubt.delete(e.clientOrderId)) {
        rows.push({ event: e, count: 1, firstAt: e.at, lastAt: e.at, audit: [] });
        continue;
      }
    }
    if (isRoutine(e) || unchanged.has(e.id)) {
      const key = `${e.source} ${e.kind}`;
      const known = routine.get(key);
      if (known) known.n++;
      else routine.set(key, { source: e.source, kind: e.kind, n: 1 });
      routineTotal++;
      continue;
    }
    const key = sameEventKey(e);
    const audit = audits.get(e.id);
    const row = byKey.get(key);
    if (row) {
      row.count++;
      row.lastAt = e.at;
      if (audit) row.audit.push(audit);
    } else {
      const fresh = { event: e, count: 1, firstAt: e.at, lastAt: e.at, audit: audit ? [audit] : [] };
      byKey.set(key, fresh);
      rows.push(fresh);
    }
  }
  return {
    rows,
    routine: [...routine.values()]
      .map(({ source, kind, n }) => ({ words: routineKindWords(source, kind, n), n }))
      .sort((a, b) => b.n - a.n || (a.words < b.words ? -1 : 1)),
    routineTotal,
  };
}

/**
 * The line between two minutes of a window that have events: how long nothing is there, and why
 * when it is known. A gap in a span whose cycles were pruned says so with the date, never "nothing
 * recorded": that would read as a quiet market.
 */
export function gapWords(gap: { from: number; to: number }, pruned: { spans: readonly { from: number; to: number }[]; prunedOn: string } | null): string {
  const ms = gap.to - gap.from;
  const length = ms < 60 * MINUTE ? `${ms / MINUTE} minute${ms === MINUTE ? "" : "s"}` : formatAge(ms);
  const cut = pruned?.spans.some((s) => s.from < gap.to && s.to > gap.from);
  return cut ? `${length}: reconciliation cycles pruned on ${formatUtc(pruned!.prunedOn)}` : `${length} with nothing recorded`;
}
