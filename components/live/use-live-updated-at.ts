"use client";
import { useEffect, useSyncExternalStore } from "react";
import { onStreamCarried, streamConfirmedAt } from "@/lib/live/carried";
import { tabStream } from "@/lib/live/stream-client";

/**
 * Asks the tab's live stream (lib/live/stream-client.ts) for the view a query's options name
 * (`meta.liveView`, set by lib/query-options/poll.ts) while the component shows it, and returns
 * when the data was last known current: the later of the query's own update and the stream's last
 * heartbeat for that view. What "updated N s ago" and the staleness rules count from; the ages
 * inside the data still count from `dataUpdatedAt`, when the server read them.
 */
export function useLiveUpdatedAt(options: { meta?: Record<string, unknown> }, dataUpdatedAt: number, enabled = true): number {
  const named = options.meta?.liveView;
  const view = enabled && typeof named === "string" ? named : undefined;
  useEffect(() => (view ? tabStream.watch(view) : undefined), [view]);
  const confirmed = useSyncExternalStore(
    onStreamCarried,
    () => (view ? streamConfirmedAt(view) : 0),
    () => 0,
  );
  return Math.max(dataUpdatedAt, confirmed);
}
