import { NextResponse, type NextRequest } from "next/server";
import { parseBreakersView } from "@/lib/breakers-view";
import { journalJson } from "@/lib/http/journal-route";
import { getBreakerBoard } from "@/lib/queries/breakers";

export function GET(request: NextRequest) {
  const parsed = parseBreakersView(request.nextUrl.searchParams);
  if (!parsed.ok) {
    return NextResponse.json({ ok: false, error: { code: "invalid", message: parsed.message } }, { status: 400, headers: { "Cache-Control": "no-store" } });
  }
  return journalJson(({ db, now }) => getBreakerBoard({ db, now, bot: parsed.view.bot, before: parsed.view.before }));
}
