/** The overview's query, one definition for the server's prefetch and the client's poll. */
import { queryOptions } from "@tanstack/react-query";
import type { Overview } from "../queries/overview";
import { LIVE_INTERVAL_MS, fetchApi } from "./fetch-api";

export const overviewQuery = () =>
  queryOptions({
    queryKey: ["overview"] as const,
    queryFn: () => fetchApi<Overview>("/api/overview"),
    refetchInterval: LIVE_INTERVAL_MS,
    refetchIntervalInBackground: false,
  });
