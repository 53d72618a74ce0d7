/**
 * What every screen's query options share: the poll interval and the fetch of a GET route's
 * ApiResult. The options themselves, one file per screen beside this one, are the one definition
 * for the server's prefetch and the client's polling; the client polls every second while the tab
 * is visible, and TanStack Query pauses the interval while the tab is hidden.
 */
import type { ApiResult } from "../http/api-result";

export const LIVE_INTERVAL_MS = 1_000;

/** A failed read: the journal's own reason when the server gave one. */
export class LiveReadError extends Error {
  override name = "LiveReadError";
  constructor(
    message: string,
    readonly code: string,
    readonly fix?: string,
  ) {
    super(message);
  }
}

export async function fetchApi<T>(url: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { cache: "no-store", headers: { accept: "application/json" } });
  } catch {
    throw new LiveReadError("the console server cannot be reached", "unreachable", "check that driftwatch is still running");
  }
  let body: ApiResult<T>;
  try {
    body = (await res.json()) as ApiResult<T>;
  } catch {
    throw new LiveReadError(`the console answered ${res.status} without data`, "bad_response");
  }
  if (!body.ok) throw new LiveReadError(body.error.message, body.error.code, body.error.fix);
  return body.data;
}
