import "server-only";
/**
 * A live view read with the same reader its JSON route calls (lib/queries/screens.ts), so the
 * stream and the poll can never disagree on what a screen shows, from which journals, or whose
 * names a reader sees.
 */
import type { SourceSet } from "../db/console";
import type { ScreenRead } from "../queries/read";
import { readBotClear, readBreakerBoard, readDoubtfulOrders, readOverview, readSymbolState } from "../queries/screens";
import type { LiveView } from "./view-names";

export function readLiveView(view: LiveView, names: boolean, set: SourceSet): Promise<ScreenRead<unknown>> {
  switch (view.kind) {
    case "overview":
      return readOverview({ names, set });
    case "doubtful":
      return readDoubtfulOrders({ names, botId: view.botId, set });
    case "breakers":
      return readBreakerBoard({ names, bot: view.botId, before: view.before, set });
    case "bot-clear":
      return readBotClear({ names, botId: view.botId, set });
    case "symbol":
      return readSymbolState({ names, botId: view.botId, symbol: view.symbol, ordersLimit: view.ordersLimit, set });
  }
}
