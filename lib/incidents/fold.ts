/**
 * A busy minute, folded: at a thousand orders an hour a bot writes a hundred routine lines a
 * minute (an intent, a send that filled, a clean reconciliation), and the few that matter (a
 * timeout, an unknown order, a drift, a trip, an operator) drown in them. Pure: the timeline shows
 * the notable events of such a minute and one line counting the routine rest, which the reader can
 * open; quieter minutes are shown whole.
 */
import type { IncidentEvent } from "./events";

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
}

const kindWords: Record<string, [string, string]> = {
  "order intent": ["order intent", "order intents"],
  "order send": ["order sent", "orders sent"],
  "order status": ["order status change", "order status changes"],
  "order lookup_found": ["lookup that found its order", "lookups that found their orders"],
  "order lookup_absent": ["lookup that proved an order absent", "lookups that proved orders absent"],
  "reconciliation clean": ["clean reconciliation", "clean reconciliations"],
  "reconciliation skipped": ["skipped reconciliation", "skipped reconciliations"],
  "reconciliation drift": ["drift cycle unchanged from the one before", "drift cycles unchanged from the one before"],
};

function words(source: string, kind: string, n: number): string {
  const known = kindWords[`${source} ${kind}`];
  const [one, many] = known ?? [`${source} ${kind.replaceAll("_", " ")}`, `${source} ${kind.replaceAll("_", " ")} events`];
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/**
 * The minute folded, or null when it has few enough routine events to be read whole. `unchanged`
 * (from unchangedDrifts over the whole window) counts as routine too.
 */
export function foldMinute(events: readonly IncidentEvent[], over = FOLD_ROUTINE_OVER, unchanged: ReadonlySet<string> = new Set()): FoldedMinute | null {
  const notable: IncidentEvent[] = [];
  const counts = new Map<string, { source: string; kind: string; n: number }>();
  for (const e of events) {
    if (!isRoutine(e) && !unchanged.has(e.id)) {
      notable.push(e);
      continue;
    }
    const key = `${e.source} ${e.kind}`;
    const c = counts.get(key);
    if (c) c.n += 1;
    else counts.set(key, { source: e.source, kind: e.kind, n: 1 });
  }
  const routine = events.length - notable.length;
  if (routine <= over) return null;
  const routineKinds = [...counts.values()]
    .sort((a, b) => b.n - a.n || (a.source + a.kind < b.source + b.kind ? -1 : 1))
    .map((c) => ({ words: words(c.source, c.kind, c.n), n: c.n }));
  return { notable, routine, routineKinds };
}
