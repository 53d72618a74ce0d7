import type { NextRequest } from "next/server";
import { parseBreakersView } from "@/lib/breakers-view";
import { badRequest, journalJson } from "@/lib/http/journal-route";
import { getBreakerBoard } from "@/lib/queries/breakers";

export function GET(request: NextRequest) {
  const parsed = parseBreakersView(request.nextUrl.searchParams);
  if (!parsed.ok) return badRequest(parsed.message);
  return journalJson(({ db, now }) => getBreakerBoard({ db, now, bot: parsed.view.bot, before: parsed.view.before }));
}
