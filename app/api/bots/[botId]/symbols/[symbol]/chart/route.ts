import { readerSeesNames } from "@/lib/auth/reader";
import type { NextRequest } from "next/server";
import { badRequest, botJson } from "@/lib/http/journal-route";
import { parsePathId } from "@/lib/url-state/path-ids";
import { anyEngine } from "@/lib/queries/read";
import { loadSymbolChart } from "@/lib/queries/screens";
import { parseSymbolRange } from "@/lib/url-state/symbol";

/** Ours against theirs for one bot and symbol over `?range=`, downsampled for drawing. */
export async function GET(req: NextRequest, ctx: RouteContext<"/api/bots/[botId]/symbols/[symbol]/chart">) {
  const params = await ctx.params;
  const botId = parsePathId("bot id", params.botId);
  if (!botId.ok) return badRequest(botId.message);
  const symbol = parsePathId("symbol", params.symbol);
  if (!symbol.ok) return badRequest(symbol.message);
  const parsed = parseSymbolRange(req.nextUrl.searchParams);
  if (!parsed.ok) return badRequest(parsed.message);
  const names = await readerSeesNames();
  return botJson(
    botId.value,
    anyEngine((ctx) => loadSymbolChart({ ...ctx, names, botId: botId.value, symbol: symbol.value, range: parsed.range })),
  );
}
