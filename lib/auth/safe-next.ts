/**
 * Where to go after signing in: a path on this site, never another site. `?next=` comes from the
 * address bar, so anyone can write it; an open redirect on a sign-in page is a phishing tool.
 */
const BASE = "http://driftwatch.invalid";

export function safeNextPath(next: unknown, fallback = "/"): string {
  if (typeof next !== "string" || next.length === 0 || next.length > 2048) return fallback;
  // One leading slash, then not a second slash or backslash: "//evil" and "/\evil" are other hosts
  // to a browser. Backslashes and control characters anywhere are refused outright, since browsers
  // read "\" as "/" and drop tabs and newlines.
  if (next[0] !== "/" || next[1] === "/" || /[\\\u0000-\u001f\u007f]/.test(next)) return fallback;
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== BASE) return fallback;
  // The URL parser resolves dot segments, plain and percent-encoded: "/.//evil.com", "/..//evil.com"
  // and "/%2e//evil.com" all come out as "//evil.com", another host once more. The result must
  // start with exactly one slash followed by something that is not a slash or backslash, encoded
  // (%2f, %5c) or not, since a later decoding step could turn it into one.
  if (/^\/(?:[/\\]|%2f|%5c)/i.test(url.pathname)) return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Back to the sign-in page is a loop, not a destination.
  if (url.pathname === "/login" || url.pathname.startsWith("/login/")) return fallback;
  return path;
}
