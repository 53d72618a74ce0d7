import "server-only";
/**
 * A live view read with the same loader its JSON route calls (lib/queries/screens.ts), so the
 * stream and the poll can never disagree on what a screen shows or whose names a reader sees.
 */
import type { ReadContext } from "../queries/read";
import { loadBotClear, loadBreakerBoard, loadDoubtfulOrders, loadOverview, loadSymbolState } from "../queries/screens";
import type { LiveView } from "./view-names";

export function readLiveView(view: LiveView, ctx: ReadContext & { names: boolean }): unknown {
  switch (view.kind) {
    case "overview":
      return loadOverview(ctx);
    case "doubtful":
      return loadDoubtfulOrders({ ...ctx, botId: view.botId });
    case "breakers":
      return loadBreakerBoard({ ...ctx, bot: view.botId, before: view.before });
    case "bot-clear":
      return loadBotClear({ ...ctx, botId: view.botId });
    case "symbol":
      return loadSymbolState({ ...ctx, botId: view.botId, symbol: view.symbol, ordersLimit: view.ordersLimit });
  }
}
