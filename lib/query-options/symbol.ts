/**
 * Query keys and options of the symbol page, shared by the server's prefetch and the client's
 * polling (the pattern of ./overview.ts). Two widgets, two routes: the book line and orders, always
 * live; the chart, live only while its window reaches now.
 */
import { keepPreviousData, queryOptions } from "@tanstack/react-query";
import type { SymbolChart } from "../queries/symbol-chart";
import type { SymbolLookup, SymbolState } from "../queries/symbol";
import type { JournalNotices } from "../queries/read";
import { rangeToQuery, type SymbolRange } from "../url-state/symbol";
import { fetchApi } from "./fetch-api";
import { LIVE_INTERVAL_MS, liveFetching, pollInterval, tabHidden } from "./poll";
import { liveViewName } from "../live/view-names";

/** A whole trading day is up to 86,400 cycles a poll: every 2 s is enough there. */
const WIDE_INTERVAL_MS = 2_000;

export type SymbolStateResult = (SymbolState | Extract<SymbolLookup, { found: false }>) & JournalNotices;

export const symbolPath = (botId: string, symbol: string) => `/bots/${encodeURIComponent(botId)}/symbols/${encodeURIComponent(symbol)}`;

const apiPath = (botId: string, symbol: string) => `/api${symbolPath(botId, symbol)}`;

export const symbolStateQuery = (p: { botId: string; symbol: string; ordersLimit: number }) =>
  queryOptions({
    queryKey: ["symbol", p.botId, p.symbol, "state", p.ordersLimit] as const,
    ...liveFetching<SymbolStateResult>(liveViewName({ kind: "symbol", ...p }), `${apiPath(p.botId, p.symbol)}?orders=${p.ordersLimit}`),
    // "Show more" asks for a longer page: keep the shorter one on screen until it arrives.
    placeholderData: keepPreviousData,
  });

export const symbolChartQuery = (p: { botId: string; symbol: string; range: SymbolRange }) =>
  queryOptions({
    queryKey: ["symbol", p.botId, p.symbol, "chart", p.range] as const,
    queryFn: () => fetchApi<SymbolChart>(`${apiPath(p.botId, p.symbol)}/chart${rangeToQuery(p.range)}`),
    // A window wholly in the past never changes: read it once.
    refetchInterval: (q) =>
      q.state.data && !q.state.data.window.live
        ? false
        : pollInterval(p.range.kind === "15m" || p.range.kind === "1h" ? LIVE_INTERVAL_MS : WIDE_INTERVAL_MS, tabHidden()),
    refetchIntervalInBackground: true,
  });
