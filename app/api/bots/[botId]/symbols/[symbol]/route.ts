import { NextResponse, type NextRequest } from "next/server";
import { z } from "zod";
import { journalJson } from "@/lib/http/journal-route";
import { getSymbolState } from "@/lib/queries/symbol";
import { MAX_ORDERS, ORDERS_PAGE } from "@/lib/symbol-view";

const ordersParam = z.coerce.number().int().min(1).max(MAX_ORDERS).default(ORDERS_PAGE);

/** The symbol's book line, its bot and its newest orders: polled every second by the symbol page. */
export async function GET(req: NextRequest, ctx: RouteContext<"/api/bots/[botId]/symbols/[symbol]">) {
  const { botId, symbol } = await ctx.params;
  const limit = ordersParam.safeParse(req.nextUrl.searchParams.get("orders") ?? undefined);
  if (!limit.success) {
    return NextResponse.json(
      { ok: false, error: { code: "invalid", message: `orders must be a whole number from 1 to ${MAX_ORDERS}` } },
      { status: 400, headers: { "Cache-Control": "no-store" } },
    );
  }
  return journalJson(({ db, config, now }) =>
    getSymbolState({
      db,
      botId,
      symbol,
      now,
      ordersLimit: limit.data,
      heartbeatStaleMs: config.heartbeatStaleMs,
      reconciliationStaleMs: config.reconciliationStaleMs,
      doubtfulGraceMs: config.doubtfulGraceMs,
    }),
  );
}
