import "server-only";
import { NextResponse } from "next/server";
import { classifyReadError, getJournal, type JournalDb } from "../db/console";
import type { JournalError } from "../db/journal-file";
import { env, type Env } from "../env";
import type { ApiResult } from "./api-result";

const noStore = { "Cache-Control": "no-store" };

/** A 400 in the routes' envelope: the request itself is wrong, and the message says how. */
export function badRequest(message: string): NextResponse<ApiResult<never>> {
  return NextResponse.json({ ok: false, error: { code: "invalid", message } }, { status: 400, headers: noStore });
}

/**
 * A GET route over the journal: 200 with the data, 503 with the one-line reason when the journal
 * cannot be read (before or during the read), 500 with a plain message (never a stack) for anything else.
 */
export function journalJson<T>(read: (ctx: { db: JournalDb; config: Env; now: Date }) => T): NextResponse<ApiResult<T>> {
  const unavailable = ({ code, message, file, fix }: JournalError) =>
    NextResponse.json({ ok: false as const, error: { code, message, file, fix } }, { status: 503, headers: noStore });
  const journal = getJournal();
  if (!journal.ok) return unavailable(journal.error);
  try {
    const data = read({ db: journal.db, config: env(), now: new Date() });
    return NextResponse.json({ ok: true, data }, { headers: noStore });
  } catch (error) {
    // A lock, damage or a lost file met halfway through the read: the same 503 as a failed open.
    const fault = classifyReadError(error);
    if (fault) return unavailable(fault);
    console.error("driftwatch: read failed:", error);
    const message = `the journal could not be read: ${(error as Error).message}`;
    return NextResponse.json({ ok: false, error: { code: "read_failed", message } }, { status: 500, headers: noStore });
  }
}
