import { NextResponse, type NextRequest } from "next/server";
import { journalJson } from "@/lib/http/journal-route";
import { getSymbolChart } from "@/lib/queries/symbol-chart";
import { parseSymbolRange } from "@/lib/symbol-view";

/** Ours against theirs for one bot and symbol over `?range=`, downsampled for drawing. */
export async function GET(req: NextRequest, ctx: RouteContext<"/api/bots/[botId]/symbols/[symbol]/chart">) {
  const { botId, symbol } = await ctx.params;
  const parsed = parseSymbolRange(req.nextUrl.searchParams);
  if (!parsed.ok) {
    return NextResponse.json({ ok: false, error: { code: "invalid", message: parsed.message } }, { status: 400, headers: { "Cache-Control": "no-store" } });
  }
  return journalJson(({ db, now }) => getSymbolChart({ db, botId, symbol, range: parsed.range, now }));
}
