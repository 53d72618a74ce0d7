import { readerSeesNames } from "@/lib/auth/reader";
import type { NextRequest } from "next/server";
import { badRequest, journalJson } from "@/lib/http/journal-route";
import { parseBotFilter } from "@/lib/url-state/path-ids";
import { loadDoubtfulOrders } from "@/lib/queries/screens";

export async function GET(request: NextRequest) {
  const bot = parseBotFilter(request.nextUrl.searchParams.getAll("bot"));
  if (!bot.ok) return badRequest(`bot: ${bot.message}`);
  const names = await readerSeesNames();
  return journalJson((ctx) => loadDoubtfulOrders({ ...ctx, names, botId: bot.value }));
}
