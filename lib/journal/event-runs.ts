/**
 * An order's history as a person reads it: a bot that keeps asking the venue about a lost order
 * writes the same failed lookup every cycle, and sixty identical lines buried the one that
 * mattered (and the buttons under them). A run of consecutive events with the same kind, actor and
 * detail is one line with its count and its first and last time; anything that differs starts a
 * new line, so nothing is hidden, only not repeated.
 */
export interface OrderEventLike {
  id: number;
  at: string;
  kind: string;
  actor: string;
  detail: string;
}

export interface EventRun<E extends OrderEventLike> {
  /** The run's first event (its id keys the line). */
  event: E;
  count: number;
  /** The last event's time; the first's when the run is one event. */
  lastAt: string;
}

export function eventRuns<E extends OrderEventLike>(events: readonly E[]): EventRun<E>[] {
  const runs: EventRun<E>[] = [];
  for (const e of events) {
    const last = runs.at(-1);
    if (last && last.event.kind === e.kind && last.event.actor === e.actor && last.event.detail === e.detail) {
      last.count++;
      last.lastAt = e.at;
    } else {
      runs.push({ event: e, count: 1, lastAt: e.at });
    }
  }
  return runs;
}
