/**
 * The client's address, as far as the console can know it, for per-client limits (sign-in, action
 * posts). Pure: the caller passes the X-Forwarded-For header and the configured proxy hops.
 *
 * With no trusted proxy (hops 0, the default) the header is the client's to write, so proxy.ts
 * drops whatever the client sent and Next then fills it from the socket: its one entry is the peer
 * that connected. With N trusted proxies in front, each appends the address it received from; the
 * client is the Nth entry from the right, and anything left of it is the client's own invention.
 */
export const UNKNOWN_ADDRESS = "unknown";

export function clientAddress(forwardedFor: string | null | undefined, trustedHops: number): string {
  const entries = (forwardedFor ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  const entry = entries[entries.length - Math.max(1, trustedHops)];
  return entry !== undefined && entry.length <= 64 && /^[0-9A-Za-z.:%[\]_-]+$/.test(entry) ? entry : UNKNOWN_ADDRESS;
}
