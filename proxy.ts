/**
 * Runs before every page, server action and JSON route (see the matcher), in this order:
 *
 *   1. the Host allow-list: any other Host gets 421 (DNS rebinding: lib/http/allowed-host.ts);
 *   2. the few malformed requests Next itself would answer with a 500 get a 4xx instead
 *      (lib/http/request-limits.ts), an action post's body included; a page post from another
 *      site's page (its Origin not this host) a 403; a post to a JSON route or a public file a
 *      405; an action this build does not have a 409; Next's image optimizer a 404;
 *   3. with DRIFTWATCH_REQUIRE_SIGN_IN, a reader who is not signed in is sent to sign in (pages) or
 *      refused (JSON routes, posts): lib/auth/read-gate.ts; GET /api/metrics passes when
 *      DRIFTWATCH_METRICS_TOKEN is set, since the route checks that token itself;
 *   4. without a trusted proxy, the client's own X-Forwarded-For is dropped, so that Next fills it
 *      from the socket (base-server.js, after this proxy) and per-client limits key on the peer;
 *   5. pages get a Content-Security-Policy with a fresh nonce, which Next reads from the request
 *      header and puts on its own inline scripts.
 *
 * Every answer made here carries a CSP and Cache-Control: no-store. The sign-in gate is for reads
 * only: every action still checks the actor itself (lib/auth/session.ts), since a proxy can be
 * bypassed by what it does not match.
 */
import { NextResponse, type NextRequest } from "next/server";
import { reportAuthProblem } from "./lib/auth/context";
import { readGate } from "./lib/auth/read-gate";
import { API_CONTENT_SECURITY_POLICY, contentSecurityPolicy } from "./lib/auth/security-headers";
import { actorFromRequest, SESSION_COOKIE } from "./lib/auth/session";
import { boundHost, env } from "./lib/env";
import { hostAllowed } from "./lib/http/allowed-host";
import { LimitedLog } from "./lib/http/rate-window";
import { builtActionIds } from "./lib/http/action-ids";
import {
  formActionIds,
  rejectActionForm,
  rejectActionHeaders,
  rejectActionText,
  rejectCrossSitePost,
  rejectRequest,
  rejectUnknownAction,
} from "./lib/http/request-limits";

const HOST_LOG = new LimitedLog({
  linesPerWindow: 10,
  windowMs: 60_000,
  maxLineChars: 300,
  what: "requests for other host names",
  write: (line) => console.error(line),
});

const CROSS_SITE_LOG = new LimitedLog({
  linesPerWindow: 10,
  windowMs: 60_000,
  maxLineChars: 300,
  what: "posts from other sites",
  write: (line) => console.error(line),
});

const CODES: Record<number, string> = { 421: "misdirected", 401: "unauthorized", 405: "method_not_allowed" };

function refusal(request: NextRequest, status: number, message: string, allow?: string): NextResponse {
  const headers: Record<string, string> = { "Cache-Control": "no-store", "Content-Security-Policy": API_CONTENT_SECURITY_POLICY };
  if (allow) headers.Allow = allow;
  // Under /api in the JSON routes' envelope; elsewhere one plain sentence.
  return request.nextUrl.pathname.startsWith("/api/")
    ? NextResponse.json({ ok: false, error: { code: CODES[status] ?? "invalid", message } }, { status, headers })
    : new NextResponse(`${message}.\n`, { status, headers: { ...headers, "Content-Type": "text/plain; charset=utf-8" } });
}

/**
 * Parses a multipart action body once more, here, so that a body Next's decoder would choke on
 * (cut short, a wrong boundary) is a 400 and not a 500 (a text/plain one is read as text). It costs a second parse of at most
 * ACTION_BODY_LIMIT_BYTES (the Content-Length was checked just before), only on page POSTs; Next
 * keeps a copy of the body for the proxy, so the action still reads it whole.
 */
async function readForm(request: NextRequest): Promise<FormData | null> {
  try {
    return await request.clone().formData();
  } catch {
    return null;
  }
}

export async function proxy(request: NextRequest) {
  const config = env();
  const pathname = request.nextUrl.pathname;
  const isApi = pathname.startsWith("/api/");

  const bound = boundHost();
  if (!hostAllowed(request.headers.get("host"), bound ? [...config.allowedHosts, bound] : config.allowedHosts)) {
    // The Host is not echoed: the page that sent it is not to be given text of its choosing.
    // The server log names the Host (bounded, unprintables replaced), so whoever runs the console
    // can see what people typed; the page does not.
    HOST_LOG.line(
      `driftwatch: answered 421 to Host ${JSON.stringify((request.headers.get("host") ?? "(none)").slice(0, 100))}: not the bound address, loopback or DRIFTWATCH_ALLOWED_HOSTS`,
    );
    return refusal(
      request,
      421,
      `This console does not answer to the host name in this address. If the name is right, whoever runs the console adds it to DRIFTWATCH_ALLOWED_HOSTS and restarts it; until then open it as ${bound ? `http://${bound}` : "the address it serves on"} (localhost and the loopback addresses always work)`,
    );
  }

  const rejection = rejectRequest({ method: request.method, pathname, headers: request.headers });
  if (rejection) return refusal(request, rejection.status, rejection.message, rejection.allow);

  if (config.requireSignIn) {
    let signedIn = false;
    try {
      signedIn = actorFromRequest({ headers: request.headers, sessionToken: request.cookies.get(SESSION_COOKIE)?.value }) !== null;
    } catch (error) {
      reportAuthProblem(error); // no accounts file: nobody is signed in, and the log says why
    }
    const gate = readGate({
      required: true,
      signedIn,
      method: request.method,
      pathname,
      search: request.nextUrl.search,
      metricsToken: config.metricsToken !== null,
    });
    if (gate.kind === "unauthorized") return refusal(request, 401, gate.message.replace(/\.$/, ""));
    if (gate.kind === "sign_in") {
      const response = NextResponse.redirect(new URL(gate.location, request.url), 303);
      response.headers.set("Cache-Control", "no-store");
      response.headers.set("Content-Security-Policy", API_CONTENT_SECURITY_POLICY);
      return response;
    }
  }

  if (request.method === "POST" && !isApi) {
    const crossSite = rejectCrossSitePost(request.headers);
    if (crossSite) {
      CROSS_SITE_LOG.line(
        `driftwatch: answered 403 to a post to ${pathname.slice(0, 60)} from Origin ${JSON.stringify(crossSite.origin.slice(0, 100))} for host ${JSON.stringify(crossSite.host.slice(0, 100))}: another site's page, or a proxy that does not pass on the Host`,
      );
      return refusal(request, crossSite.status, crossSite.message);
    }
    const headerFault = rejectActionHeaders(request.headers);
    if (headerFault) return refusal(request, headerFault.status, headerFault.message);
    const type = request.headers.get("content-type") ?? "";
    const form = type.startsWith("multipart/form-data") ? await readForm(request) : null;
    const actionHeader = request.headers.get("next-action");
    const bodyFault = type.startsWith("multipart/form-data")
      ? rejectActionForm(form, actionHeader !== null)
      : type.startsWith("text/plain")
        ? rejectActionText(await request.clone().text())
        : null;
    if (bodyFault) return refusal(request, bodyFault.status, bodyFault.message);
    const unknown = rejectUnknownAction(actionHeader ?? (form ? formActionIds(form) : null), builtActionIds());
    if (unknown) return refusal(request, unknown.status, unknown.message);
  }

  const requestHeaders = new Headers(request.headers);
  // The header is the client's to write unless proxies in front are trusted to have appended to it.
  if (config.trustedProxyHops === 0) requestHeaders.delete("x-forwarded-for");

  // The JSON routes render nothing: no nonce to mint; next.config.ts gives them a fixed policy.
  if (isApi) return NextResponse.next({ request: { headers: requestHeaders } });
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  // NODE_ENV is fixed by Next when it builds (development under next dev), not configuration.
  const csp = contentSecurityPolicy({ nonce, dev: process.env.NODE_ENV === "development" });
  requestHeaders.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

export const config = {
  // Pages, the server actions they post to, the JSON routes and the public files; not the hashed
  // static files. The exception whole: a bare prefix let `/_next/staticx` (a 404 page) skip the
  // Host check and the CSP. The favicons and Next's image optimizer were skipped too, until a post
  // to /favicon.svg was found to answer any Host with a 500, and /_next/image to log a line for
  // every made-up url.
  matcher: [{ source: "/((?!_next/static/).*)" }],
};
