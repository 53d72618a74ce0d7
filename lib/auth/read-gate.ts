/**
 * DRIFTWATCH_REQUIRE_SIGN_IN: when set, who may read. Pure, so the rule is unit-tested; proxy.ts
 * asks it once per request, before any page, JSON route or action runs, with whether the request
 * carries a signed-in account (a session, or a proven SSO header).
 *
 * Pages send a reader who is not signed in to /login, and back afterwards; JSON routes answer 401
 * in their envelope (the live pages then show UNKNOWN, never stale data as current). A POST that
 * is not the sign-in itself is refused too: an anonymous action would be refused by its guard
 * anyway, and a refusal here costs nothing.
 */
export type ReadGate = { kind: "pass" } | { kind: "sign_in"; location: string } | { kind: "unauthorized"; message: string };

/** Paths anyone may load: the sign-in page itself and what it needs. */
const OPEN_PATHS = ["/login", "/favicon.svg", "/favicon-halted.svg", "/favicon-unknown.svg"];

export const SIGN_IN_REQUIRED_MESSAGE = "Sign in to read this console (it runs with DRIFTWATCH_REQUIRE_SIGN_IN=1).";

/** Prometheus's scrape: it proves itself with DRIFTWATCH_METRICS_TOKEN (checked by the route), never a session. */
export const METRICS_PATH = "/api/metrics";

export const METRICS_NEED_TOKEN_MESSAGE =
  "This console requires sign-in, so GET /api/metrics needs a token instead: set DRIFTWATCH_METRICS_TOKEN and give Prometheus the same one (docs/alerting.md).";

export function readGate(req: {
  required: boolean;
  signedIn: boolean;
  method: string;
  pathname: string;
  search: string;
  /** DRIFTWATCH_METRICS_TOKEN is set: the metrics route checks it, so the gate lets the scrape through. */
  metricsToken?: boolean;
}): ReadGate {
  if (!req.required || req.signedIn) return { kind: "pass" };
  if (req.pathname === METRICS_PATH && (req.method === "GET" || req.method === "HEAD"))
    return req.metricsToken ? { kind: "pass" } : { kind: "unauthorized", message: METRICS_NEED_TOKEN_MESSAGE };
  // Open to read; of posts, only the sign-in itself (a post under /_next/ reached an action anonymously).
  const reads = req.method === "GET" || req.method === "HEAD";
  if ((OPEN_PATHS.includes(req.pathname) || req.pathname.startsWith("/_next/")) && (reads || req.pathname === "/login")) return { kind: "pass" };
  if (req.pathname.startsWith("/api/") || (req.method !== "GET" && req.method !== "HEAD")) return { kind: "unauthorized", message: SIGN_IN_REQUIRED_MESSAGE };
  const back = `${req.pathname}${req.search}`;
  return { kind: "sign_in", location: back === "/" ? "/login" : `/login?next=${encodeURIComponent(back)}` };
}
