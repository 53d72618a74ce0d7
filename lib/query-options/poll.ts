/**
 * How often the browser asks for live data when the tab's live stream (lib/live/stream-client.ts)
 * does not carry it (stalled, dropped, refused), the one rule every screen's query options share: every
 * second while the tab is in front, every 5 s while it is hidden (a tab in the background still
 * learns of a trip, at a fifth of the cost). Hidden is not stale: the staleness rules (the halt
 * signal's "no update for …", each page's "updated … ago") judge the data's age, not the tab's.
 *
 * The halt signal (title, favicon, desktop notifications) polls every 2 s whether hidden or not,
 * on a timer chained from each answer (components/live/use-chained-poll.ts) so that Chromium's
 * intensive throttling of hidden tabs (chained timers woken once a minute after 5 minutes hidden)
 * does not apply to it; the screens' own polls use TanStack Query's interval and may be slowed to
 * once a minute after a long time hidden, which the halt signal does not depend on.
 */
import { streamCarries } from "../live/carried";
import { fetchLive } from "./fetch-api";

export const LIVE_INTERVAL_MS = 1_000;
export const HIDDEN_INTERVAL_MS = 5_000;
export const SIGNAL_INTERVAL_MS = 2_000;

/** The interval for a poll of `visibleMs` while the tab is in front, given whether it is hidden now. */
export function pollInterval(visibleMs: number, hidden: boolean): number {
  return hidden ? Math.max(visibleMs, HIDDEN_INTERVAL_MS) : visibleMs;
}

/** Whether the tab is hidden now (false on the server). */
export function tabHidden(): boolean {
  return typeof document !== "undefined" && document.visibilityState === "hidden";
}

/**
 * The polling options of a live query: TanStack Query asks for the interval again after each answer,
 * so a tab that goes to the background slows down at its next poll and speeds up on its return (the
 * return itself refetches, through refetchOnWindowFocus).
 *
 * `view`: the live view (lib/live/view-names.ts) that carries the same data on the tab's stream.
 * While a healthy stream carries it the query asks nothing (no interval, no refetch on focus); when
 * the stream stalls or drops, the stream refetches the query at once and the interval is back.
 */
export function livePolling(view?: string, visibleMs: number = LIVE_INTERVAL_MS) {
  return {
    refetchInterval: () => (streamCarries(view) ? false : pollInterval(visibleMs, tabHidden())),
    refetchIntervalInBackground: true,
    refetchOnWindowFocus: () => !streamCarries(view),
    // Read by components/live/use-live-updated-at.ts, which asks the tab's stream for this view.
    meta: { liveView: view },
  } as const;
}

/** A live screen's fetch and polling together: `url`'s data, polled as livePolling says, never replacing a newer stream event (fetchLive). */
export function liveFetching<T>(view: string | undefined, url: string, visibleMs?: number) {
  return { queryFn: () => fetchLive<T>(view, url), ...livePolling(view, visibleMs) };
}
