import { UtcTime } from "@/components/ui/utc-time";
import type { EventRun, OrderEventLike } from "@/lib/journal/event-runs";

/**
 * A folded run's time: its one event's, or its first and last ("03:01:10–03:16:05 UTC"). On a
 * narrow screen the line may break before the dash, never after it or inside a time: a phone showed
 * "03:01:10 UTC–" with the last time alone on the next line.
 */
export function RunTime({ run, className }: { run: EventRun<OrderEventLike>; className?: string }) {
  return (
    <>
      <span className="whitespace-nowrap">
        <UtcTime iso={run.event.at} className={className} />
      </span>
      {run.count > 1 && (
        <span className="whitespace-nowrap" data-testid="run-last">
          –<UtcTime iso={run.lastAt} className={className} />
        </span>
      )}
    </>
  );
}

/** " ×60" after a folded run's words; nothing for a single event. */
export function RunCount({ run }: { run: EventRun<OrderEventLike> }) {
  return run.count > 1 ? <strong data-testid="order-event-count"> ×{run.count}</strong> : null;
}
