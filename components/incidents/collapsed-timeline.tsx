import { UtcTime } from "@/components/ui/utc-time";
import type { CollapsedTimeline as Collapsed } from "@/lib/incidents/collapse";
import type { IncidentEvent } from "@/lib/incidents/events";
import { visibleText } from "@/lib/text/visible-text";
import { WideOpenDetails } from "./wide-open-details";

const mark: Record<IncidentEvent["severity"], string> = {
  emergency: "border-red-700",
  warning: "border-amber-600",
  notice: "border-sky-700",
  info: "border-slate-400",
};

const clock = (iso: string) => new Date(iso).toISOString().slice(11, 19);

/** The incident's events, one line each: repeats counted with their first and last time, routine events counted apart. */
export function CollapsedTimeline({ timeline, events }: { timeline: Collapsed; events: number }) {
  return (
    <WideOpenDetails
      testId="story-timeline"
      summary={
        <>
          Timeline: {timeline.rows.length} line{timeline.rows.length === 1 ? "" : "s"} for {events.toLocaleString("en-US")} event{events === 1 ? "" : "s"}
        </>
      }
    >
      <ol className="mt-2 space-y-0.5 text-sm">
        {timeline.rows.map((r) => (
          <li
            key={r.event.id}
            id={r.event.id}
            data-testid="story-event"
            data-source={r.event.source}
            data-kind={r.event.kind}
            data-count={r.count}
            className={`grid grid-cols-[auto_minmax(0,1fr)] gap-x-2 border-l-4 pl-2 ${mark[r.event.severity]}`}
          >
            <span className="font-mono text-xs leading-5 sm:text-sm">
              <UtcTime iso={r.firstAt}>{clock(r.firstAt)}</UtcTime>
              {r.count > 1 && (
                <>
                  –<UtcTime iso={r.lastAt}>{clock(r.lastAt)}</UtcTime>
                </>
              )}
            </span>
            <span>
              {visibleText(r.event.summary)}
              {r.count > 1 && (
                <strong className="ml-1 whitespace-nowrap" data-testid="repeat-count">
                  ×{r.count}
                </strong>
              )}
            </span>
          </li>
        ))}
      </ol>
      {timeline.routineTotal > 0 && (
        <p className="mt-2 text-sm text-slate-700 dark:text-slate-200" data-testid="routine-count">
          Routine, not listed ({timeline.routineTotal.toLocaleString("en-US")}):{" "}
          {timeline.routine.map((r) => `${r.n.toLocaleString("en-US")} ${r.words}`).join(", ")}.
        </p>
      )}
    </WideOpenDetails>
  );
}
