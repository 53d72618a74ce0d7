import { readerSeesNames } from "@/lib/auth/reader";
import type { NextRequest } from "next/server";
import { z } from "zod";
import { badRequest, botJson } from "@/lib/http/journal-route";
import { parsePathId } from "@/lib/url-state/path-ids";
import { anyEngine } from "@/lib/queries/read";
import { loadSymbolState } from "@/lib/queries/screens";
import { MAX_ORDERS, ORDERS_PAGE } from "@/lib/url-state/symbol";

const ordersParam = z.coerce.number().int().min(1).max(MAX_ORDERS).default(ORDERS_PAGE);

/** The symbol's book line, its bot and its newest orders: polled every second by the symbol page. */
export async function GET(req: NextRequest, ctx: RouteContext<"/api/bots/[botId]/symbols/[symbol]">) {
  const params = await ctx.params;
  const botId = parsePathId("bot id", params.botId);
  if (!botId.ok) return badRequest(botId.message);
  const symbol = parsePathId("symbol", params.symbol);
  if (!symbol.ok) return badRequest(symbol.message);
  const limit = ordersParam.safeParse(req.nextUrl.searchParams.get("orders") ?? undefined);
  if (!limit.success) return badRequest(`orders must be a whole number from 1 to ${MAX_ORDERS}`);
  const names = await readerSeesNames();
  return botJson(
    botId.value,
    anyEngine((ctx) => loadSymbolState({ ...ctx, names, botId: botId.value, symbol: symbol.value, ordersLimit: limit.data })),
  );
}
