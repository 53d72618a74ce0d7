import "server-only";
/**
 * The Host allow-list: a request naming any other host is refused with 421 before a route or an
 * action runs. A DNS-rebinding page reaches a loopback console under its own name
 * (`evil.example:3031`); the browser sends that name as Host, and only the allow-list tells it
 * apart. Pure: proxy.ts passes env().allowedHosts (`name` = any port, `name:port` = that port).
 */

/** `Name:Port` → { name, port } lowercased; null when the header is no host at all. */
export function splitHost(host: string): { name: string; port: string | null } | null {
  const h = host.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::([0-9]{1,5}))?$/.exec(h);
  if (!m || m[1] === undefined) return null;
  return { name: m[1], port: m[2] ?? null };
}

export function hostAllowed(host: string | null | undefined, allowed: readonly string[]): boolean {
  if (!host) return false;
  const parsed = splitHost(host);
  if (!parsed) return false;
  for (const entry of allowed) {
    const e = splitHost(entry);
    if (!e || e.name !== parsed.name) continue;
    if (e.port === null || e.port === parsed.port) return true;
  }
  return false;
}
