import "server-only";
import { NextResponse } from "next/server";
import { getActor } from "../auth/session";
import { classifyReadError, getJournal, type JournalDb } from "../db/console";
import type { JournalError } from "../db/journal-file";
import { env, type Env } from "../env";
import type { ApiResult } from "./api-result";
import { journalProblemFor } from "./journal-problem";

const noStore = { "Cache-Control": "no-store" };

/** A 400 in the routes' envelope: the request itself is wrong, and the message says how. */
export function badRequest(message: string): NextResponse<ApiResult<never>> {
  return NextResponse.json({ ok: false, error: { code: "invalid", message } }, { status: 400, headers: noStore });
}

/**
 * A GET route over the journal: 200 with the data, 503 with the one-line reason when the journal
 * cannot be read (before or during the read), 500 with a plain message (never a stack) for anything else.
 */
export async function journalJson<T>(read: (ctx: { db: JournalDb; config: Env; now: Date }) => T): Promise<NextResponse<ApiResult<T>>> {
  const journal = getJournal();
  if (!journal.ok) return journalUnavailable(journal.error);
  try {
    const data = read({ db: journal.db, config: env(), now: new Date() });
    return NextResponse.json({ ok: true, data }, { headers: noStore });
  } catch (error) {
    // A lock, damage or a lost file met halfway through the read: the same 503 as a failed open.
    const fault = classifyReadError(error);
    if (fault) return journalUnavailable(fault);
    console.error("driftwatch: read failed:", error);
    const message = `the journal could not be read: ${(error as Error).message}`;
    return NextResponse.json({ ok: false, error: { code: "read_failed", message } }, { status: 500, headers: noStore });
  }
}

/** The 503 of a journal that cannot be read; the full path only to a signed-in reader. */
export async function journalUnavailable(error: JournalError): Promise<NextResponse<ApiResult<never>>> {
  const { code, message, file, fix } = journalProblemFor(error, { signedIn: (await getActor()) !== null });
  return NextResponse.json({ ok: false as const, error: { code, message, file, fix } }, { status: 503, headers: noStore });
}
