/** The bot page's clear-halt panel query, one definition for the server's prefetch and the client's poll. */
import { queryOptions } from "@tanstack/react-query";
import type { BotClearView } from "../queries/bot-clear";
import type { JournalNotices } from "../queries/read";
import { liveFetching } from "./poll";
import { liveViewName } from "../live/view-names";

export const botClearQuery = (botId: string) =>
  queryOptions({
    queryKey: ["bot-clear", botId] as const,
    ...liveFetching<(BotClearView & JournalNotices) | null>(liveViewName({ kind: "bot-clear", botId }), `/api/bots/${encodeURIComponent(botId)}/clear`),
  });
