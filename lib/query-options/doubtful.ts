/** The doubtful orders' query, one definition for the server's prefetch and the client's poll. */
import { queryOptions } from "@tanstack/react-query";
import type { DoubtfulOrder } from "../queries/doubtful";
import type { SourceHealth } from "../queries/fleet";
import type { JournalNotices } from "../queries/read";
import { liveFetching } from "./poll";
import { liveViewName } from "../live/view-names";

/** `sources`: each journal's state, when the console reads several (lib/queries/fleet.ts). */
export type DoubtfulList = { orders: DoubtfulOrder[]; total: number; sources?: SourceHealth[] } & JournalNotices;

export const doubtfulQuery = (bot: string | null) =>
  queryOptions({
    queryKey: ["doubtful", bot ?? ""] as const,
    ...liveFetching<DoubtfulList>(liveViewName({ kind: "doubtful", botId: bot }), `/api/doubtful${bot ? `?bot=${encodeURIComponent(bot)}` : ""}`),
  });
