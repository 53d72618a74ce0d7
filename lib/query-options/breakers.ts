/**
 * The breakers board's query, one definition for the server's prefetch and the client's poll.
 * Polled every second while the tab is visible, every 5 s while it is hidden (./poll.ts).
 */
import { queryOptions } from "@tanstack/react-query";
import { breakersViewToQuery, type BreakersView } from "../url-state/breakers";
import type { BreakerBoard } from "../queries/breakers";
import type { JournalNotices } from "../queries/read";
import { liveFetching } from "./poll";
import { liveViewName } from "../live/view-names";

export const breakersQuery = (view: BreakersView) =>
  queryOptions({
    queryKey: ["breakers", view.bot, view.before] as const,
    ...liveFetching<BreakerBoard & JournalNotices>(
      view.bot === null && view.before !== null ? undefined : liveViewName({ kind: "breakers", botId: view.bot, before: view.before }),
      `/api/breakers${breakersViewToQuery(view)}`,
    ),
  });
