/**
 * The query each live view feeds (lib/live/view-names.ts): its key is the very key the screen's
 * query options use, so an event from GET /api/live lands where a poll's answer would.
 */
import { parseLiveViewName } from "../live/view-names";
import { botClearQuery } from "./bot-clear";
import { breakersQuery } from "./breakers";
import { doubtfulQuery } from "./doubtful";
import { overviewQuery } from "./overview";
import { symbolStateQuery } from "./symbol";

export function liveQueryKey(name: string): readonly unknown[] | null {
  const parsed = parseLiveViewName(name);
  if (!parsed.ok) return null;
  const view = parsed.value;
  switch (view.kind) {
    case "overview":
      return overviewQuery().queryKey;
    case "doubtful":
      return doubtfulQuery(view.botId).queryKey;
    case "breakers":
      return breakersQuery({ bot: view.botId, before: view.before }).queryKey;
    case "bot-clear":
      return botClearQuery(view.botId).queryKey;
    case "symbol":
      return symbolStateQuery(view).queryKey;
  }
}
