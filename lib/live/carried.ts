/**
 * Which live views this tab's stream carries right now, and when the stream last confirmed each
 * one current: the state the screens' polling options (lib/query-options/poll.ts) and their
 * "updated N s ago" read. Written only by the browser's stream (./stream-client.ts); on the
 * server nothing is carried, so every query polls as before.
 */
let confirmed = new Map<string, number>();
const listeners = new Set<() => void>();

/** Whether a healthy stream carries this view: its screen's query then asks nothing itself. */
export function streamCarries(view: string | undefined): boolean {
  return view !== undefined && confirmed.has(view);
}

/** When the stream last said this view is as it was sent (a ping or an event); 0 when it does not carry it. */
export function streamConfirmedAt(view: string): number {
  return confirmed.get(view) ?? 0;
}

export function setStreamCarried(next: Map<string, number>): void {
  confirmed = next;
  for (const l of listeners) l();
}

export function onStreamCarried(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A view event as the stream wrote it into its query: the data, or the error a poll would have met. */
export type PushedView =
  | { view: string; ok: true; data: unknown }
  | { view: string; ok: false; status?: number; error: { code: string; message: string; file?: string; fix?: string } };

/** The newest event the stream wrote into each view's query, and when this tab received it (a monotonic clock). */
const pushed = new Map<string, { receivedAt: number; payload: PushedView }>();

export function notePushed(payload: PushedView): void {
  pushed.set(payload.view, { receivedAt: performance.now(), payload });
}

/**
 * The stream's event for this view received since `since` (performance.now()), if any: a poll asked
 * before it must not replace it with its own answer, read earlier (lib/query-options/fetch-api.ts fetchLive).
 */
export function pushedSince(view: string, since: number): PushedView | null {
  const p = pushed.get(view);
  return p && p.receivedAt >= since ? p.payload : null;
}
