import { readerSeesNames } from "@/lib/auth/reader";
import type { NextRequest } from "next/server";
import { badRequest, screenJson } from "@/lib/http/journal-route";
import { parseBotFilter } from "@/lib/url-state/path-ids";
import { readDoubtfulOrders } from "@/lib/queries/screens";

export async function GET(request: NextRequest) {
  const bot = parseBotFilter(request.nextUrl.searchParams.getAll("bot"));
  if (!bot.ok) return badRequest(`bot: ${bot.message}`);
  const names = await readerSeesNames();
  return screenJson(() => readDoubtfulOrders({ names, botId: bot.value }));
}
