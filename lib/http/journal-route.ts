import "server-only";
import { NextResponse } from "next/server";
import { getActor } from "../auth/session";
import type { JournalError } from "../db/journal-file";
import { readBotScreen, type ReadContext, type ScreenRead } from "../queries/read";
import type { ApiResult } from "./api-result";
import { journalProblemFor } from "./journal-problem";

const noStore = { "Cache-Control": "no-store" };

/** A 400 in the routes' envelope: the request itself is wrong, and the message says how. */
export function badRequest(message: string): NextResponse<ApiResult<never>> {
  return NextResponse.json({ ok: false, error: { code: "invalid", message } }, { status: 400, headers: noStore });
}

/**
 * A GET route over a bot's screen: 200 with the data, 503 with the one-line reason when the bot's
 * journal cannot be read (before or during the read), 500 with a plain message (never a stack) for
 * anything else. `read` is the screen's loader (lib/queries/screens.ts), the same one its page
 * calls, run on the journal that holds the bot (lib/queries/read.ts readBotScreen).
 */
export async function botJson<T>(botId: string, read: (ctx: ReadContext) => T): Promise<NextResponse<ApiResult<T>>> {
  return screenJson(() => readBotScreen(botId, read));
}

/** botJson for a screen read by its own reader (a fleet screen merged over every journal, lib/queries/screens.ts). */
export async function screenJson<T>(read: () => Promise<ScreenRead<T>>): Promise<NextResponse<ApiResult<T>>> {
  return answer(read, (data) => NextResponse.json({ ok: true as const, data }, { headers: noStore }), "read");
}

/**
 * A route that shapes its own answer (a download) over a screen read by its own reader
 * (lib/queries/screens.ts): `respond` builds it from the data, with the same 503 and 500 as
 * botJson. `what` names the read in the server's log.
 */
export function screenResponse<T, R extends Response>(
  read: () => Promise<ScreenRead<T>>,
  respond: (data: T) => R,
  what = "read",
): Promise<R | NextResponse<ApiResult<never>>> {
  return answer(read, respond, what);
}

async function answer<T, R extends Response>(
  read: () => Promise<ScreenRead<T>>,
  respond: (data: T) => R,
  what: string,
): Promise<R | NextResponse<ApiResult<never>>> {
  let result;
  try {
    result = await read();
  } catch (error) {
    console.error(`driftwatch: ${what} failed:`, error);
    const message = `the journal could not be read: ${(error as Error).message}`;
    return NextResponse.json({ ok: false as const, error: { code: "read_failed", message } }, { status: 500, headers: noStore });
  }
  // A lock, damage or a lost file, met at the open or halfway through the read: the same 503.
  if (!result.ok) return journalUnavailable(result.error);
  return respond(result.data);
}

/** The 503 of a journal that cannot be read; the full path only to a signed-in reader. */
export async function journalUnavailable(error: JournalError): Promise<NextResponse<ApiResult<never>>> {
  const { code, message, file, fix } = journalProblemFor(error, { signedIn: (await getActor()) !== null });
  return NextResponse.json({ ok: false as const, error: { code, message, file, fix } }, { status: 503, headers: noStore });
}
