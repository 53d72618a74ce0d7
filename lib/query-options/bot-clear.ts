/** The bot page's clear-halt panel query, one definition for the server's prefetch and the client's poll. */
import { queryOptions } from "@tanstack/react-query";
import type { BotClearView } from "../queries/bot-clear";
import { fetchApi } from "./fetch-api";
import { livePolling } from "./poll";
import { liveViewName } from "../live/view-names";

export const botClearQuery = (botId: string) =>
  queryOptions({
    queryKey: ["bot-clear", botId] as const,
    queryFn: () => fetchApi<BotClearView | null>(`/api/bots/${encodeURIComponent(botId)}/clear`),
    ...livePolling(liveViewName({ kind: "bot-clear", botId })),
  });
