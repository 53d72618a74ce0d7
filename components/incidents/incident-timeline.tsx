import { formatAge } from "@/lib/format";
import type { IncidentEvent } from "@/lib/incidents/events";
import { MINUTE_MS } from "@/lib/incidents/window";
import { IncidentEventRow } from "./incident-event-row";

interface Minute {
  start: number;
  events: IncidentEvent[];
}

function byMinute(events: readonly IncidentEvent[]): Minute[] {
  const out: Minute[] = [];
  for (const e of events) {
    const t = Date.parse(e.at);
    const start = Number.isNaN(t) ? NaN : Math.floor(t / MINUTE_MS) * MINUTE_MS;
    const last = out.at(-1);
    if (last && (last.start === start || (Number.isNaN(start) && Number.isNaN(last.start)))) last.events.push(e);
    else out.push({ start, events: [e] });
  }
  return out;
}

const minuteTitle = (start: number) => (Number.isNaN(start) ? "unreadable time" : `${new Date(start).toISOString().slice(0, 16).replace("T", " ")} UTC`);

/**
 * The window minute by minute: a header per minute that has events, and a line saying how long
 * nothing was recorded between two of them, so quiet stretches read as quiet, not as missing.
 */
export function IncidentTimeline({ events }: { events: readonly IncidentEvent[] }) {
  const minutes = byMinute(events);
  return (
    <ol className="space-y-4" aria-label="Events, oldest first, by minute">
      {minutes.map((m, i) => {
        const prev = minutes[i - 1];
        const gap = prev ? m.start - prev.start - MINUTE_MS : 0;
        const id = `minute-${i}`;
        return (
          <li key={`${m.start}-${i}`}>
            {gap > 0 && (
              <p className="mb-3 border-t border-dashed border-slate-400 pt-1 text-xs text-slate-700 dark:text-slate-200">
                {gap < 60 * MINUTE_MS ? `${gap / MINUTE_MS} minute${gap === MINUTE_MS ? "" : "s"}` : formatAge(gap)} with nothing recorded
              </p>
            )}
            <section aria-labelledby={id} data-testid="incident-minute">
              <h3 id={id} className="sticky top-0 z-10 mb-1 bg-slate-50/95 py-1 font-mono text-sm font-bold dark:bg-slate-950/95">
                {minuteTitle(m.start)}
                <span className="ml-2 font-sans font-normal text-slate-700 dark:text-slate-200">
                  {m.events.length} event{m.events.length === 1 ? "" : "s"}
                </span>
              </h3>
              <ol className="space-y-1.5">
                {m.events.map((e) => (
                  <li key={e.id}>
                    <IncidentEventRow event={e} />
                  </li>
                ))}
              </ol>
            </section>
          </li>
        );
      })}
    </ol>
  );
}
