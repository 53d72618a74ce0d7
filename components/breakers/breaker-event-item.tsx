import Link from "next/link";
import { MAX_WINDOW_MS } from "@/lib/url-state/incidents";
import { UtcTime } from "@/components/ui/utc-time";
import { WrappingText } from "@/components/ui/wrapping-text";
import { formatUtc } from "@/lib/text/format";
import type { BreakerEventView } from "@/lib/queries/breakers";
import { DriftList } from "./drift-list";
import { HaltedFor } from "./halted-for";
import { changedByOperator } from "@/lib/breaker/halt-cause";
import { DurationText } from "@/components/ui/duration-text";
import { TAP_TARGET } from "@/components/ui/tap-target";

/** A breaker event's number, as exports name it (`breaker-<n>`); a trip's is its incident's. */
function EventNumber({ id }: { id: number }) {
  return (
    <span className="font-mono text-xs" data-testid="breaker-event-number">
      <span className="sr-only">breaker event </span>#{id}
    </span>
  );
}

/** One trip or clear: when, who, why, how long the halt lasted (an open halt keeps counting). */
export function BreakerEventItem({ event, unsure = false }: { event: BreakerEventView; unsure?: boolean }) {
  if (event.kind === "clear") {
    return (
      <article
        id={`breaker-${event.id}`}
        data-testid="breaker-event"
        data-kind="clear"
        className="rounded border-l-4 border-emerald-700 bg-white p-3 text-sm shadow-sm dark:bg-slate-900"
      >
        <header className="flex flex-wrap items-center gap-x-3 gap-y-1">
          <span className="rounded bg-emerald-800 px-1.5 py-0.5 text-xs font-bold uppercase text-white">Clear</span>
          <EventNumber id={event.id} />
          <UtcTime iso={event.at} className="font-mono" />
          <span>
            by <span className="font-mono">{event.actor}</span>
          </span>
        </header>
        <p className="mt-1 whitespace-pre-line break-words">
          <WrappingText text={event.reason} />
        </p>
        <p className="mt-1 text-slate-700 dark:text-slate-200" data-testid="breaker-duration">
          {event.durationMs === null ? (
            "No trip recorded before this clear."
          ) : (
            <>
              Ended a halt of <DurationText ms={event.durationMs} />
              {event.storyHref && event.tripId !== null ? (
                <>
                  :{" "}
                  <Link href={event.storyHref} className={`font-semibold underline ${TAP_TARGET}`} data-testid="cleared-incident">
                    incident {event.tripId}
                  </Link>
                </>
              ) : null}
              .
            </>
          )}
        </p>
      </article>
    );
  }

  const halted = event.status === "halted";
  return (
    <article
      id={`breaker-${event.id}`}
      data-testid="breaker-event"
      data-kind="trip"
      data-status={event.status}
      className="rounded border-l-4 border-red-700 bg-red-50 p-3 text-sm text-red-950 shadow-sm dark:bg-red-950 dark:text-red-50"
    >
      <header className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="rounded bg-red-700 px-1.5 py-0.5 text-xs font-bold uppercase text-white">Trip</span>
        <EventNumber id={event.id} />
        <UtcTime iso={event.at} className="font-mono" />
        <span>
          by <span className="font-mono">{event.actor}</span>
        </span>
      </header>
      <p className="mt-1 whitespace-pre-line break-words font-semibold" data-testid="breaker-reason">
        <WrappingText text={event.reason} />
      </p>
      {!event.cause && changedByOperator(event.actor) && (
        <p className="mt-2" data-testid="breaker-cause">
          Halted by hand (Halt now): no reconciliation caused it. It is cleared like any other halt.
        </p>
      )}
      {event.cause && (
        <div className="mt-2" data-testid="breaker-cause">
          <p>
            Caused by{" "}
            <Link href={event.cause.href} className={`font-semibold underline ${TAP_TARGET}`} data-testid="breaker-cause-link">
              reconciliation #{event.cause.reconciliationId}
            </Link>
            {event.cause.at ? (
              <>
                {" "}
                at <UtcTime iso={event.cause.at} className="font-mono" /> ({event.cause.outcome})
              </>
            ) : (
              " (that cycle is not in the journal)"
            )}
            {event.cause.drifts.length > 0 ? ", drifting:" : ""}
          </p>
          <DriftList drifts={event.cause.drifts} label={`Symbols drifting in reconciliation #${event.cause.reconciliationId}`} />
        </div>
      )}
      <p className="mt-2" data-testid="breaker-duration">
        {event.status === "halted" ? (
          // "Still" is a claim about now: while the page is not current, the halt is as last read.
          <strong>
            {unsure ? "Halted when last read" : "Still halted"}: halted for <HaltedFor since={event.at} />
            {unsure ? " so far" : ""}.
          </strong>
        ) : event.status === "cleared" && event.clearedAt ? (
          <>
            Halted for <DurationText ms={event.durationMs} />; cleared <UtcTime iso={event.clearedAt} className="font-mono" /> by{" "}
            <span className="font-mono">{event.clearedBy}</span>.
          </>
        ) : (
          "Ended without a clear event: the breaker is no longer halted, but no one recorded who cleared it or when."
        )}
      </p>
      <p className="mt-2">
        <Link href={event.incident.storyHref} className={`font-semibold underline ${TAP_TARGET}`} data-testid="review-incident">
          Review this incident<span className="sr-only"> of the trip at {formatUtc(event.at)}</span>
        </Link>{" "}
        <span className="text-xs">(its story: summary, chart, who did what, post-mortem)</span>
        {" · "}
        <Link href={event.incident.href} className={`underline ${TAP_TARGET}`} data-testid="review-minutes">
          minute by minute<span className="sr-only"> around the trip at {formatUtc(event.at)}</span>
        </Link>{" "}
        <span className="text-xs">
          (
          {Date.parse(event.incident.to) - Date.parse(event.incident.from) >= MAX_WINDOW_MS
            ? "the first 7 days, from 15 min before the trip: the widest window the review shows"
            : halted
              ? "from 15 min before the trip to now"
              : "from 15 min before the trip to 15 min after it ended"}
          )
        </span>
      </p>
    </article>
  );
}
