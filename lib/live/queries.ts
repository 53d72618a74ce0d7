/**
 * Query keys and options, one place for the server's prefetch and the client's polling. The
 * client polls a GET route every second while the tab is visible; TanStack Query pauses the
 * interval while the tab is hidden.
 */
import { queryOptions } from "@tanstack/react-query";
import type { ApiResult } from "../http/api-result";
import type { BotClearView } from "../queries/bot-clear";
import type { DoubtfulOrder } from "../queries/doubtful";
import type { Overview } from "../queries/overview";

export type DoubtfulList = { orders: DoubtfulOrder[]; total: number };

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

export const overviewQuery = () =>
  queryOptions({
    queryKey: ["overview"] as const,
    queryFn: () => fetchApi<Overview>("/api/overview"),
    refetchInterval: LIVE_INTERVAL_MS,
    refetchIntervalInBackground: false,
  });

export const doubtfulQuery = (bot: string | null) =>
  queryOptions({
    queryKey: ["doubtful", bot ?? ""] as const,
    queryFn: () => fetchApi<DoubtfulList>(`/api/doubtful${bot ? `?bot=${encodeURIComponent(bot)}` : ""}`),
    refetchInterval: LIVE_INTERVAL_MS,
    refetchIntervalInBackground: false,
  });

export const botClearQuery = (botId: string) =>
  queryOptions({
    queryKey: ["bot-clear", botId] as const,
    queryFn: () => fetchApi<BotClearView | null>(`/api/bots/${encodeURIComponent(botId)}/clear`),
    refetchInterval: LIVE_INTERVAL_MS,
    refetchIntervalInBackground: false,
  });
