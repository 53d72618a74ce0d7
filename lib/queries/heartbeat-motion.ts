import "server-only";
/**
 * What the console has seen of each bot's heartbeat between its own reads: when, on the console's
 * clock, heartbeat_at last changed. A heartbeat that changes yet reads old tells "the bot's clock
 * is behind" apart from "the bot stopped", which one read alone cannot. Kept per connection (a
 * reopened or replaced journal starts afresh), one entry per bot.
 */

interface Seen {
  value: string | null;
  /** When this value was last read. */
  seenAt: number;
  /**
   * When the value last changed, as early as the reads allow: the read before the one that saw it
   * new. Taking the later read instead made a bot that stopped while nobody was reading look alive
   * at the next read (its last beat, written long before, was "seen moving" just now), so it read
   * as a clock behind instead of STALE (a try-out, 2026-12-04).
   */
  changedAt: number | null;
}

const byConnection = new WeakMap<object, Map<string, Seen>>();

/** Records this read; returns how long ago, at most, the value last changed between the console's reads, or null if it never saw it change. */
export function observeHeartbeat(connection: object, botId: string, value: string | null, now: Date): number | null {
  let seen = byConnection.get(connection);
  if (!seen) byConnection.set(connection, (seen = new Map()));
  const t = now.getTime();
  const prev = seen.get(botId);
  if (!prev) {
    seen.set(botId, { value, seenAt: t, changedAt: null });
    return null;
  }
  if (prev.value !== value) {
    prev.value = value;
    prev.changedAt = prev.seenAt;
  }
  prev.seenAt = t;
  return prev.changedAt === null ? null : Math.max(0, t - prev.changedAt);
}
