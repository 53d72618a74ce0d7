import { gapWords } from "@/lib/incidents/collapse";
import type { RepeatLine } from "@/lib/incidents/lines";
import type { PrunedHistory } from "@/lib/queries/pruned-history";
import { FOLD_ROUTINE_OVER, type TimelineMinute } from "@/lib/incidents/fold";
import { incidentExportHref, MINUTE_MS, type IncidentFilters, type IncidentWindow } from "@/lib/url-state/incidents";
import { FoldedMinute } from "./folded-minute";
import { IncidentEventRow } from "./incident-event-row";

const minuteTitle = (start: number) => (Number.isNaN(start) ? "unreadable time" : `${new Date(start).toISOString().slice(0, 16).replace("T", " ")} UTC`);

/** A minute's lines: a run of events that say the same thing is one row, "×N" with its first and last time, and each of them is a click away. */
function EventList({ lines }: { lines: readonly RepeatLine[] }) {
  if (lines.length === 0) return null;
  return (
    <ol className="space-y-1.5">
      {lines.map((l) => (
        <li key={l.event.id}>
          <IncidentEventRow event={l.event} repeat={l.count > 1 ? { count: l.count, lastAt: l.lastAt } : undefined} audit={l.audit} />
          {l.repeats.length > 0 && (
            <details className="ml-4 mt-1 text-sm" data-testid="repeat-events">
              <summary className="cursor-pointer text-xs underline">
                The other {l.repeats.length.toLocaleString("en-US")} of these {l.count.toLocaleString("en-US")}, one by one
              </summary>
              <ol className="mt-1 space-y-1.5">
                {l.repeats.map((e) => (
                  <li key={e.id}>
                    <IncidentEventRow event={e} />
                  </li>
                ))}
              </ol>
            </details>
          )}
        </li>
      ))}
    </ol>
  );
}

/** The minute's own part of the window: a window's first and last minute may be cut by its edges. */
function minuteWindow(start: number, window: IncidentWindow): IncidentWindow {
  const from = Math.max(start, Date.parse(window.from));
  const to = Math.min(start + MINUTE_MS, Date.parse(window.to));
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

/**
 * The window minute by minute: a header per minute that has events, and a line saying how long
 * nothing was recorded between two of them, so quiet stretches read as quiet, not as missing. A
 * busy minute shows its notable events and folds the routine rest (lib/incidents/fold.ts); events
 * said again one under the other are one row with their count (lib/incidents/lines.ts).
 */
export function IncidentTimeline({
  minutes,
  window,
  filters,
  pruned,
}: {
  minutes: readonly TimelineMinute[];
  window: IncidentWindow;
  filters: IncidentFilters;
  /** The window's pruned spans: a gap there says its cycles were pruned, and when. */
  pruned: PrunedHistory | null;
}) {
  const folded = minutes.filter((m) => m.fold).length;
  return (
    <>
      {folded > 0 && (
        <p className="text-sm" data-testid="fold-note">
          {folded === 1 ? "One busy minute" : `${folded.toLocaleString("en-US")} busy minutes`} (over {FOLD_ROUTINE_OVER} routine events each){" "}
          {folded === 1 ? "shows" : "show"} only their notable events: whatever went wrong, and whatever an operator did. The routine rest (intents, orders sent
          and filled, clean reconciliations, drift cycles unchanged from the one before) is counted on one line you can open.
        </p>
      )}
      <ol className="space-y-4" aria-label="Events, oldest first, by minute">
        {minutes.map((m, i) => {
          const prev = minutes[i - 1];
          const gap = prev ? m.start - prev.start - MINUTE_MS : 0;
          const id = `minute-${i}`;
          const fold = m.fold;
          return (
            <li key={`${m.start}-${i}`}>
              {gap > 0 && (
                <p className="mb-3 border-t border-dashed border-slate-400 pt-1 text-xs text-slate-700 dark:text-slate-200" data-testid="minute-gap">
                  {gapWords({ from: m.start - gap, to: m.start }, pruned)}
                </p>
              )}
              <section aria-labelledby={id} data-testid="incident-minute">
                <h3 id={id} className="sticky top-0 z-10 mb-1 bg-slate-50/95 py-1 font-mono text-sm font-bold dark:bg-slate-950/95">
                  {minuteTitle(m.start)}
                  <span className="ml-2 font-sans font-normal text-slate-700 dark:text-slate-200">
                    {m.total.toLocaleString("en-US")} event{m.total === 1 ? "" : "s"}
                    {fold ? `, ${fold.notable.length} notable` : ""}
                  </span>
                </h3>
                {fold && !Number.isNaN(m.start) ? (
                  <FoldedMinute
                    exportHref={incidentExportHref(minuteWindow(m.start, window), filters, "json")}
                    total={m.total}
                    routine={fold.routine}
                    summary={fold.routineKinds.map((k) => k.words).join(", ")}
                    listId={`${id}-events`}
                  >
                    <EventList lines={m.lines} />
                  </FoldedMinute>
                ) : (
                  <EventList lines={m.lines} />
                )}
              </section>
            </li>
          );
        })}
      </ol>
    </>
  );
}
