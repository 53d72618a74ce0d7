/**
 * When a live page stops vouching for what it shows: its data, last confirmed current at
 * `updatedAt` (a poll's answer or the live stream's word that nothing changed), is older than
 * NOT_CURRENT_AFTER_MS on the reader's clock. A failed poll says so at once; this rule catches what
 * a failed poll never reports: a request that hangs, a stream that went quiet, a tab whose timers
 * stalled. One rule for every screen (the overview, a bot's page, a symbol, the breakers, the
 * doubtful list), so no page calls current what another already calls stale. Pure;
 * components/live/use-not-current.ts applies it on the reader's clock.
 */
import { formatAge } from "../text/format";

/** Data older than this is not current: the page polls every second, or its stream confirms it about as often. */
export const NOT_CURRENT_AFTER_MS = 5_000;

/** How old the data is, and whether that makes it not current. Nothing has arrived yet (`updatedAt` 0): no age to judge. */
export function dataAge(updatedAt: number, now: number): { ageMs: number; notCurrent: boolean } {
  if (updatedAt <= 0) return { ageMs: 0, notCurrent: false };
  const ageMs = Math.max(0, now - updatedAt);
  return { ageMs, notCurrent: ageMs > NOT_CURRENT_AFTER_MS };
}

/**
 * The banner's words for it: "the page has not been updated for 7 s". Counted as the page's
 * "updated N s ago" counts (formatAge, whole seconds down): rounded, the two read 34 and 33 s on
 * one screen (a try-out).
 */
export const notUpdatedWords = (ageMs: number) => `the page has not been updated for ${formatAge(ageMs)}`;
