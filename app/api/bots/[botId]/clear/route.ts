import { readerSeesNames } from "@/lib/auth/reader";
import type { NextRequest } from "next/server";
import { badRequest, botJson } from "@/lib/http/journal-route";
import { parsePathId } from "@/lib/url-state/path-ids";
import { loadBotClear } from "@/lib/queries/screens";

export async function GET(_request: NextRequest, ctx: { params: Promise<{ botId: string }> }) {
  const botId = parsePathId("bot id", (await ctx.params).botId);
  if (!botId.ok) return badRequest(botId.message);
  const names = await readerSeesNames();
  return botJson(botId.value, (ctx) => loadBotClear({ ...ctx, names, botId: botId.value }));
}
