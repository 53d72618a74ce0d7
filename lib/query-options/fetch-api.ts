/**
 * What every screen's query options share: the fetch of a GET route's ApiResult (and, in ./poll.ts,
 * how often). The options themselves, one file per screen beside this one, are the one definition
 * for the server's prefetch and the client's polling; the client polls every second while the tab
 * is visible and every 5 s while it is hidden.
 */
import type { ApiResult } from "../http/api-result";
import { pushedSince } from "../live/carried";

/**
 * Why a read failed, for the banner's headline: the browser could not reach the console at all,
 * the console answered that the journal cannot be read (503), or the console failed otherwise.
 */
export type LiveFailureKind = "unreachable" | "journal" | "server";

/** A failed read: the journal's own reason when the server gave one. */
export class LiveReadError extends Error {
  override name = "LiveReadError";
  constructor(
    message: string,
    readonly code: string,
    readonly fix?: string,
    readonly kind: LiveFailureKind = "server",
  ) {
    super(message);
  }
}

/** The failure of a fetch that never got an answer (server down, network gone). */
export function unreachableError(): LiveReadError {
  return new LiveReadError(
    "the console server cannot be reached",
    "unreachable",
    "check that driftwatch is still running and that this device can reach it",
    "unreachable",
  );
}

/**
 * The failure an answer stands for: a 503 carrying a journal error is the journal's problem, with
 * its own message and fix; anything else is the server's ("the server answered HTTP 500").
 */
export function answerError(status: number, body: unknown): LiveReadError {
  const error = (body as { ok?: unknown; error?: { code?: unknown; message?: unknown; fix?: unknown } } | null)?.error;
  const code = typeof error?.code === "string" ? error.code : "bad_response";
  const message = typeof error?.message === "string" ? error.message : null;
  const fix = typeof error?.fix === "string" ? error.fix : undefined;
  // A console that is stopping (lib/http/before-next.ts) is going away, which is not the journal's problem.
  if (status === 503 && code === "stopping")
    return new LiveReadError("the console server is stopping", "stopping", "check that driftwatch is being started again", "unreachable");
  if (status === 503 && message !== null) return new LiveReadError(message, code, fix, "journal");
  if (status >= 400 && status < 500 && message !== null) return new LiveReadError(message, code, fix, "server");
  return new LiveReadError(
    `the server answered HTTP ${status}${message !== null ? ` (${message})` : " without data"}`,
    code,
    fix ?? "reload the page; if it persists, read the console server's log",
    "server",
  );
}

/** The banner's headline for a failed read. */
export function liveFailureTitle(error: LiveReadError): string {
  if (error.kind === "unreachable") return "The console server cannot be reached";
  if (error.kind === "journal") return "The console cannot read the journal right now";
  return "The console server failed to answer";
}

/**
 * The error's message without its fix, for a place that shows the fix apart: a journal's message
 * ends ". Fix: <fix>" (lib/db/journal-file.ts JournalError).
 */
export function problemText(error: LiveReadError): string {
  const tail = error.fix ? `. Fix: ${error.fix}` : null;
  return tail && error.message.endsWith(tail) ? error.message.slice(0, -tail.length) : error.message;
}

/** The error's message and its fix, each once (a journal's message already ends with its fix). */
export function withFix(error: Error): string {
  const fix = error instanceof LiveReadError ? error.fix : undefined;
  return fix && !error.message.includes(fix) ? `${error.message} (${fix})` : error.message;
}

/** Any query error as a LiveReadError (an unexpected one counts as the server's). */
export function asLiveReadError(e: Error | null): LiveReadError | null {
  return e instanceof LiveReadError ? e : e ? new LiveReadError(e.message, "unknown") : null;
}

export async function fetchApi<T>(url: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { cache: "no-store", headers: { accept: "application/json" } });
  } catch {
    throw unreachableError();
  }
  let body: ApiResult<T> | null;
  try {
    body = (await res.json()) as ApiResult<T>;
  } catch {
    body = null;
  }
  if (body?.ok === true && res.ok) return body.data;
  throw answerError(res.status, body);
}

/**
 * fetchApi for a screen the tab's live stream may carry (`view`). A poll asked before a stream event
 * can answer after it with an older read: a journal that just went away would show as running
 * again, and stay so, since the stream sends nothing more while nothing changes. So when an event
 * for the view arrived while this poll was out, the poll answers what the event said. (Its data then
 * counts as updated when the poll ends, at most the poll's own duration after the server read it.)
 */
export async function fetchLive<T>(view: string | undefined, url: string): Promise<T> {
  const asked = performance.now();
  let answer: { ok: true; data: T } | { ok: false; error: unknown };
  try {
    answer = { ok: true, data: await fetchApi<T>(url) };
  } catch (error) {
    answer = { ok: false, error };
  }
  const pushed = view === undefined ? null : pushedSince(view, asked);
  if (pushed) {
    if (pushed.ok) return pushed.data as T;
    throw answerError(pushed.status ?? 503, pushed);
  }
  if (answer.ok) return answer.data;
  throw answer.error;
}
