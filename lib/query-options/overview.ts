/** The overview's query, one definition for the server's prefetch and the client's poll. */
import { queryOptions } from "@tanstack/react-query";
import type { Overview } from "../queries/overview";
import type { JournalNotices } from "../queries/read";
import { liveFetching } from "./poll";
import { liveViewName } from "../live/view-names";

export const overviewQuery = () =>
  queryOptions({
    queryKey: ["overview"] as const,
    ...liveFetching<Overview & JournalNotices>(liveViewName({ kind: "overview" }), "/api/overview"),
  });

/**
 * The same data for the halt signal of every page (title, favicon, notifications): no interval of
 * TanStack Query's own, since components/live/use-chained-poll.ts asks every SIGNAL_INTERVAL_MS
 * whether the tab is hidden or not, on timers Chromium does not throttle to once a minute.
 */
export const haltSignalQuery = () => queryOptions({ ...overviewQuery(), refetchInterval: false, refetchIntervalInBackground: false });
