import type { NextRequest } from "next/server";
import { badRequest, journalJson } from "@/lib/http/journal-route";
import { parseBotFilter } from "@/lib/path-ids";
import { listDoubtfulOrders } from "@/lib/queries/doubtful";

export function GET(request: NextRequest) {
  const bot = parseBotFilter(request.nextUrl.searchParams.getAll("bot"));
  if (!bot.ok) return badRequest(`bot: ${bot.message}`);
  return journalJson(({ db, config, now }) => listDoubtfulOrders({ db, now, graceMs: config.doubtfulGraceMs, botId: bot.value }));
}
