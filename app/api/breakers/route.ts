import { readerSeesNames } from "@/lib/auth/reader";
import type { NextRequest } from "next/server";
import { parseBreakersView } from "@/lib/url-state/breakers";
import { badRequest, journalJson } from "@/lib/http/journal-route";
import { loadBreakerBoard } from "@/lib/queries/screens";

export async function GET(request: NextRequest) {
  const parsed = parseBreakersView(request.nextUrl.searchParams);
  if (!parsed.ok) return badRequest(parsed.message);
  const names = await readerSeesNames();
  return journalJson((ctx) => loadBreakerBoard({ ...ctx, names, bot: parsed.view.bot, before: parsed.view.before }));
}
