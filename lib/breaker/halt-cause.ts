/**
 * How a halt's cause reads once it is gone. A breaker's reason is written when it trips and never
 * changes; shown as it is after the symbol came back in sync, it reads as a live emergency. The
 * bot card, the bot page and the banner on every page all word it through this one function.
 */

/** `03:12 UTC` from an ISO timestamp; null when it does not parse. */
function hhmmUtc(iso: string): string | null {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : `${new Date(t).toISOString().slice(11, 16)} UTC`;
}

/**
 * The halt's cause as the reader should take it now: the recorded reason while its cause may still
 * be there; "tripped on …; in sync since 03:12 UTC" once every symbol that tripped it is back in sync
 * (`inSyncSince`, from the first compared cycle after its last drifting one).
 */
export function haltCauseText(p: { reason: string | null; inSyncSince: string | null }): string {
  const reason = p.reason?.trim() ? p.reason.trim() : "no reason recorded";
  if (p.inSyncSince === null) return reason;
  const since = hhmmUtc(p.inSyncSince);
  return since === null ? `tripped on ${reason}; in sync since then` : `tripped on ${reason}; in sync since ${since}`;
}
