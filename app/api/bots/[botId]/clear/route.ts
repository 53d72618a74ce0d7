import { readerSeesNames } from "@/lib/auth/reader";
import type { NextRequest } from "next/server";
import { badRequest, screenJson } from "@/lib/http/journal-route";
import { parsePathId } from "@/lib/url-state/path-ids";
import { readBotClear } from "@/lib/queries/screens";

export async function GET(_request: NextRequest, ctx: { params: Promise<{ botId: string }> }) {
  const botId = parsePathId("bot id", (await ctx.params).botId);
  if (!botId.ok) return badRequest(botId.message);
  const names = await readerSeesNames();
  return screenJson(() => readBotClear({ names, botId: botId.value }));
}
