import { forReader } from "@/lib/auth/actor-names";
import { readerSeesNames } from "@/lib/auth/reader";
import type { NextRequest } from "next/server";
import { getJournal } from "@/lib/db/console";
import { badRequest, journalJson } from "@/lib/http/journal-route";
import { parsePathId } from "@/lib/url-state/path-ids";
import { getBotClearView } from "@/lib/queries/bot-clear";

export async function GET(_request: NextRequest, ctx: { params: Promise<{ botId: string }> }) {
  const botId = parsePathId("bot id", (await ctx.params).botId);
  if (!botId.ok) return badRequest(botId.message);
  const names = await readerSeesNames();
  return journalJson(({ db, config, now }) => {
    const journal = getJournal();
    if (!journal.ok) throw journal.error;
    return forReader(getBotClearView({ db, sqlite: journal.sqlite, botId: botId.value, now, ...config }), names);
  });
}
