import type { NextRequest } from "next/server";
import { journalJson } from "@/lib/http/journal-route";
import { listDoubtfulOrders } from "@/lib/queries/doubtful";

export function GET(request: NextRequest) {
  const bot = request.nextUrl.searchParams.get("bot");
  return journalJson(({ db, config, now }) => listDoubtfulOrders({ db, now, graceMs: config.doubtfulGraceMs, botId: bot ? bot.slice(0, 200) : null }));
}
