import "server-only";
/**
 * What the console has seen of each bot's heartbeat between its own reads: when, on the console's
 * clock, heartbeat_at last changed. A heartbeat that changes yet reads old tells "the bot's clock
 * is behind" apart from "the bot stopped", which one read alone cannot. Kept per connection (a
 * reopened or replaced journal starts afresh), one entry per bot.
 */

interface Seen {
  value: string | null;
  changedAt: number | null;
}

const byConnection = new WeakMap<object, Map<string, Seen>>();

/** Records this read; returns how long ago the console last saw the value change, or null if never. */
export function observeHeartbeat(connection: object, botId: string, value: string | null, now: Date): number | null {
  let seen = byConnection.get(connection);
  if (!seen) byConnection.set(connection, (seen = new Map()));
  const t = now.getTime();
  const prev = seen.get(botId);
  if (!prev) {
    seen.set(botId, { value, changedAt: null });
    return null;
  }
  if (prev.value !== value) {
    prev.value = value;
    prev.changedAt = t;
  }
  return prev.changedAt === null ? null : Math.max(0, t - prev.changedAt);
}
