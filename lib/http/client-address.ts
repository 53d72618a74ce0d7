/**
 * The client's address, as far as the console can know it, for per-client limits (sign-in, action
 * posts). Pure: the caller passes the X-Forwarded-For header and the configured proxy hops.
 *
 * With no trusted proxy (hops 0, the default) the header is the client's to write, so proxy.ts
 * drops whatever the client sent and Next then fills it from the socket: its one entry is the peer
 * that connected. With N trusted proxies in front, each appends the address it received from; the
 * client is the Nth entry from the right, and anything left of it is the client's own invention.
 */
import ipaddr from "ipaddr.js";

export const UNKNOWN_ADDRESS = "unknown";

export function clientAddress(forwardedFor: string | null | undefined, trustedHops: number): string {
  const entries = (forwardedFor ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  const entry = entries[entries.length - Math.max(1, trustedHops)];
  return entry !== undefined && entry.length <= 64 && /^[0-9A-Za-z.:%[\]_-]+$/.test(entry) ? entry : UNKNOWN_ADDRESS;
}

/**
 * The key a per-address limit counts an address under: an IPv4 address itself (an IPv4-mapped IPv6
 * one too), an IPv6 address by its /64. One subscriber is handed at least a /64 and picks any of its
 * 2^64 addresses at will, so counting each address alone would let one client's failures start
 * afresh with every new address. Anything that does not parse (UNKNOWN_ADDRESS) is one key of its own.
 */
export function addressLimitKey(address: string): string {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  // A zone (`fe80::1%eth0`) names the console's own interface, not the client: not part of the key.
  const zoneless = bare.split("%")[0] ?? bare;
  if (!ipaddr.isValid(zoneless)) return address;
  const ip = ipaddr.process(zoneless);
  if (ip.kind() === "ipv4") return ip.toString();
  return `${(ip as ipaddr.IPv6).toNormalizedString().split(":").slice(0, 4).join(":")}::/64`;
}
