import { readerSeesNames } from "@/lib/auth/reader";
import type { NextRequest } from "next/server";
import { parseBreakersView } from "@/lib/url-state/breakers";
import { badRequest, screenJson } from "@/lib/http/journal-route";
import { readBreakerBoard } from "@/lib/queries/screens";

export async function GET(request: NextRequest) {
  const parsed = parseBreakersView(request.nextUrl.searchParams);
  if (!parsed.ok) return badRequest(parsed.message);
  const names = await readerSeesNames();
  return screenJson(() => readBreakerBoard({ names, bot: parsed.view.bot, before: parsed.view.before }));
}
