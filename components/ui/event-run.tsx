import { UtcTime } from "@/components/ui/utc-time";
import type { EventRun, OrderEventLike } from "@/lib/journal/event-runs";

/** A folded run's time: its one event's, or its first and last ("03:01:10–03:16:05 UTC"). */
export function RunTime({ run, className }: { run: EventRun<OrderEventLike>; className?: string }) {
  return (
    <>
      <UtcTime iso={run.event.at} className={className} />
      {run.count > 1 && (
        <>
          –<UtcTime iso={run.lastAt} className={className} />
        </>
      )}
    </>
  );
}

/** " ×60" after a folded run's words; nothing for a single event. */
export function RunCount({ run }: { run: EventRun<OrderEventLike> }) {
  return run.count > 1 ? <strong data-testid="order-event-count"> ×{run.count}</strong> : null;
}
