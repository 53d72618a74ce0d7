import { DriftList } from "@/components/breakers/drift-list";
import { UtcTime } from "@/components/ui/utc-time";
import { rowIdOf, type IncidentEvent } from "@/lib/incidents/events";
import { lineSummary, repeatWords } from "@/lib/incidents/lines";
import Link from "next/link";
import { visibleText } from "@/lib/text/visible-text";
import { incidentStoryHref } from "@/lib/url-state/incidents";
import { WrappingText } from "@/components/ui/wrapping-text";

const rowStyle: Record<IncidentEvent["severity"], string> = {
  emergency: "border-red-700 bg-red-50 text-red-950 dark:bg-red-950 dark:text-red-50",
  warning: "border-amber-600 bg-amber-50 text-amber-950 dark:bg-amber-950 dark:text-amber-50",
  notice: "border-sky-700 bg-sky-50 text-sky-950 dark:bg-sky-950 dark:text-sky-50",
  info: "border-slate-300 bg-white dark:border-slate-600 dark:bg-slate-900",
};

function label(e: IncidentEvent): { text: string; style: string } {
  if (e.source === "breaker") {
    return e.kind === "trip" ? { text: "Trip", style: "bg-red-700 text-white" } : { text: "Clear", style: "bg-emerald-800 text-white" };
  }
  if (e.source === "reconciliation") {
    const style = e.severity === "emergency" ? "bg-red-700 text-white" : e.severity === "warning" ? "bg-amber-800 text-white" : "bg-slate-600 text-white";
    return { text: `Reconcile · ${e.kind}`, style };
  }
  if (e.source === "audit") {
    return { text: `Audit · ${e.kind.replaceAll("_", " ")}`, style: e.outcome === "refused" ? "bg-amber-800 text-white" : "bg-sky-800 text-white" };
  }
  const style = e.severity === "emergency" ? "bg-red-700 text-white" : e.severity === "warning" ? "bg-amber-800 text-white" : "bg-slate-600 text-white";
  return { text: `Order · ${e.kind.replaceAll("_", " ")}`, style };
}

/** Time of day to the millisecond: the minute header above already says the date. */
const timeOfDay = (iso: string) => {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toISOString().slice(11, 23);
};

function hasDetail(detail: unknown): boolean {
  if (detail === null || detail === undefined || detail === "") return false;
  return typeof detail !== "object" || Object.keys(detail).length > 0;
}

/**
 * One event of the timeline, worded for a reader who was not there; with `repeat`, the first of a
 * run of events that say the same thing: its time to the last one's, and how many; with `audit`,
 * the audit entry of the console action that wrote this breaker event, told on its line.
 */
export function IncidentEventRow({
  event: e,
  repeat,
  audit = [],
}: {
  event: IncidentEvent;
  repeat?: { count: number; lastAt: string };
  audit?: readonly IncidentEvent[];
}) {
  const l = label(e);
  return (
    <article
      id={e.id}
      data-testid="incident-event"
      data-source={e.source}
      data-kind={e.kind}
      data-severity={e.severity}
      data-at={e.at}
      data-count={repeat?.count ?? 1}
      className={`grid scroll-mt-4 grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 rounded border-l-4 p-2 text-sm target:ring-2 target:ring-sky-600 ${rowStyle[e.severity]}`}
    >
      <span className="font-mono text-xs leading-6 sm:text-sm">
        <UtcTime iso={e.at}>{timeOfDay(e.at)}</UtcTime>
        {repeat && (
          <span className="block" data-testid="repeat-last">
            –<UtcTime iso={repeat.lastAt}>{timeOfDay(repeat.lastAt)}</UtcTime>
          </span>
        )}
      </span>
      <div className="min-w-0">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <span className={`rounded px-1.5 py-0.5 text-xs font-bold uppercase ${l.style}`}>{l.text}</span>
          {e.botId && <span className="font-mono text-xs font-semibold">{e.botId}</span>}
          {e.journal && (
            <span className="text-xs" data-testid="event-journal">
              journal <span className="font-mono">{e.journal}</span>
            </span>
          )}
          {e.operator && <span className="rounded border border-current px-1.5 text-xs font-semibold">{e.actor}</span>}
        </div>
        {/* Ids in it (an order id, a URL) break at their own places; its words only when one is longer than the line. */}
        <p className={`mt-1 whitespace-pre-line break-words ${e.severity === "emergency" ? "font-semibold" : ""}`}>
          <WrappingText text={repeat ? lineSummary({ event: e, count: repeat.count }) : e.summary} />
          {repeat && (
            <strong className="ml-1 whitespace-nowrap" data-testid="repeat-count">
              {repeatWords({ event: e, count: repeat.count })}
            </strong>
          )}
        </p>
        {/* The console's halt or clear is one action: its audit entry is told here, not as a row of its own (as in the story). */}
        {audit.map((a) => (
          <p key={a.id} id={a.id} className="scroll-mt-4 text-xs [overflow-wrap:anywhere]" data-testid="incident-event-audit">
            audit log: {visibleText(a.summary)}
          </p>
        ))}
        {e.source === "breaker" && e.kind === "trip" && (
          <p className="text-xs">
            <Link href={incidentStoryHref(rowIdOf(e), e.journal)} className="font-semibold underline" data-testid="incident-story-link">
              This incident as a story: summary, chart, post-mortem
            </Link>
          </p>
        )}
        {e.clientOrderId && <p className="font-mono text-xs [overflow-wrap:anywhere]">{e.clientOrderId}</p>}
        {e.drifts.length > 0 && <DriftList drifts={e.drifts} label={`Symbols drifting in reconciliation #${e.reconciliationId}`} />}
        {hasDetail(e.detail) && (
          <details className="mt-1">
            <summary className="cursor-pointer py-1 text-xs underline">detail</summary>
            <pre className="mt-1 whitespace-pre-wrap font-mono text-xs [overflow-wrap:anywhere]">
              {visibleText(typeof e.detail === "string" ? e.detail : JSON.stringify(e.detail, null, 2))}
            </pre>
          </details>
        )}
      </div>
    </article>
  );
}
