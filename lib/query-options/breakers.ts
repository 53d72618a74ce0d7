/**
 * The breakers board's query, one definition for the server's prefetch and the client's poll.
 * Polled every second while the tab is visible, paused while it is hidden.
 */
import { queryOptions } from "@tanstack/react-query";
import { breakersViewToQuery, type BreakersView } from "../url-state/breakers";
import type { BreakerBoard } from "../queries/breakers";
import { LIVE_INTERVAL_MS, fetchApi } from "./fetch-api";

export const breakersQuery = (view: BreakersView) =>
  queryOptions({
    queryKey: ["breakers", view.bot, view.before] as const,
    queryFn: () => fetchApi<BreakerBoard>(`/api/breakers${breakersViewToQuery(view)}`),
    refetchInterval: LIVE_INTERVAL_MS,
    refetchIntervalInBackground: false,
  });
