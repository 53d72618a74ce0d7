import { UtcTime } from "@/components/ui/utc-time";
import type { CollapsedRow, CollapsedTimeline as Collapsed } from "@/lib/incidents/collapse";
import { lineSummary, repeatWords } from "@/lib/incidents/lines";
import type { IncidentEvent } from "@/lib/incidents/events";
import { visibleText } from "@/lib/text/visible-text";
import { WideOpenDetails } from "./wide-open-details";

const mark: Record<IncidentEvent["severity"], string> = {
  emergency: "border-red-700",
  warning: "border-amber-600",
  notice: "border-sky-700",
  info: "border-slate-400",
};

/** Lines shown before "more lines": with the summary and the chart, the page stays within two screens. */
const SHOWN_LINES = 20;

const clock = (iso: string) => new Date(iso).toISOString().slice(11, 19);

function Row({ r }: { r: CollapsedRow }) {
  return (
    <li
      id={r.event.id}
      data-testid="story-event"
      data-source={r.event.source}
      data-kind={r.event.kind}
      data-count={r.count}
      className={`grid grid-cols-[auto_minmax(0,1fr)] gap-x-2 border-l-4 pl-2 ${mark[r.event.severity]}`}
    >
      {/* As wide as "–18:00:30" on every row, so every line's words start at one edge (a row with a
          last time began about 7 px further right, a try-out). */}
      <span className="w-[9ch] font-mono text-xs leading-5 sm:text-sm">
        <UtcTime iso={r.firstAt}>{clock(r.firstAt)}</UtcTime>
        {/* A run's last time under its first, as the window puts it (beside it, the time column pushed
            every line's words into a narrower column on a phone); a run within one second says its
            second once, not "18:00:30–18:00:30". */}
        {r.count > 1 && clock(r.lastAt) !== clock(r.firstAt) && (
          <span className="block">
            –<UtcTime iso={r.lastAt}>{clock(r.lastAt)}</UtcTime>
          </span>
        )}
      </span>
      {/* A venue's URL or an order id in the words breaks anywhere rather than run off a phone's edge. */}
      <span className="min-w-0 [overflow-wrap:anywhere]">
        {visibleText(lineSummary(r))}
        {r.count > 1 && (
          <strong className="ml-1 whitespace-nowrap" data-testid="repeat-count">
            {repeatWords(r)}
          </strong>
        )}
        {/* The console's halt or clear is one action: its audit entry is told here, not as a line of its own. */}
        {r.audit.map((a) => (
          <span key={a.id} id={a.id} className="block text-xs text-slate-700 dark:text-slate-200" data-testid="story-event-audit">
            audit log: {visibleText(a.summary)}
          </span>
        ))}
      </span>
    </li>
  );
}

/** The incident's events, one line each: repeats counted with their first and last time, routine events counted apart. */
export function CollapsedTimeline({ timeline, events, cyclesPrunedOn }: { timeline: Collapsed; events: number; cyclesPrunedOn: string | null }) {
  const shown = timeline.rows.slice(0, SHOWN_LINES);
  const rest = timeline.rows.slice(SHOWN_LINES);
  return (
    <WideOpenDetails
      testId="story-timeline"
      summary={
        <>
          Timeline: {timeline.rows.length} line{timeline.rows.length === 1 ? "" : "s"} for {events.toLocaleString("en-US")} event{events === 1 ? "" : "s"}
          {cyclesPrunedOn && (
            <span data-testid="story-timeline-pruned">
              ; its reconciliation cycles were pruned on <UtcTime iso={cyclesPrunedOn} />
            </span>
          )}
        </>
      }
    >
      <ol className="mt-2 space-y-0.5 text-sm">
        {shown.map((r) => (
          <Row key={r.event.id} r={r} />
        ))}
      </ol>
      {rest.length > 0 && (
        <details className="mt-1 text-sm" data-testid="more-lines">
          <summary className="cursor-pointer underline">
            {rest.length} more line{rest.length === 1 ? "" : "s"}, to {clock(rest.at(-1)!.lastAt)}
          </summary>
          <ol className="mt-1 space-y-0.5">
            {rest.map((r) => (
              <Row key={r.event.id} r={r} />
            ))}
          </ol>
        </details>
      )}
      {timeline.routineTotal > 0 && (
        <p className="mt-2 text-sm text-slate-700 dark:text-slate-200" data-testid="routine-count">
          Routine, not listed ({timeline.routineTotal.toLocaleString("en-US")}):{" "}
          {timeline.routine.map((r) => `${r.n.toLocaleString("en-US")} ${r.words}`).join(", ")}.
        </p>
      )}
    </WideOpenDetails>
  );
}
