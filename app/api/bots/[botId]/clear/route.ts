import type { NextRequest } from "next/server";
import { getJournal } from "@/lib/db/console";
import { journalJson } from "@/lib/http/journal-route";
import { getBotClearView } from "@/lib/queries/bot-clear";

export async function GET(_request: NextRequest, ctx: { params: Promise<{ botId: string }> }) {
  const { botId } = await ctx.params;
  return journalJson(({ db, config, now }) => {
    const journal = getJournal();
    if (!journal.ok) throw journal.error;
    return getBotClearView({ db, sqlite: journal.sqlite, botId: botId.slice(0, 200), now, ...config });
  });
}
