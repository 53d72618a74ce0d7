/**
 * A Content-Security-Policy with a fresh nonce on every page, which Next reads from the request
 * header and puts on its own inline scripts; and a 4xx for the few malformed requests Next itself
 * would answer with a 500 (lib/http/request-limits.ts). No authentication here: every action checks
 * the actor itself (lib/auth/session.ts), since a proxy can be bypassed by what it does not match.
 */
import { NextResponse, type NextRequest } from "next/server";
import { readGate } from "./lib/auth/read-gate";
import { contentSecurityPolicy } from "./lib/auth/security-headers";
import { actorFromRequest, SESSION_COOKIE } from "./lib/auth/session";
import { reportAuthProblem } from "./lib/auth/context";
import { env } from "./lib/env";
import { rejectRequest } from "./lib/http/request-limits";

export function proxy(request: NextRequest) {
  const rejection = rejectRequest({ method: request.method, pathname: request.nextUrl.pathname, headers: request.headers });
  if (rejection) {
    const headers = { "Cache-Control": "no-store" };
    // Under /api in the JSON routes' envelope; elsewhere one plain sentence.
    return request.nextUrl.pathname.startsWith("/api/")
      ? NextResponse.json({ ok: false, error: { code: "invalid", message: rejection.message } }, { status: rejection.status, headers })
      : new NextResponse(`${rejection.message}.\n`, { status: rejection.status, headers: { ...headers, "Content-Type": "text/plain; charset=utf-8" } });
  }
  const gated = signInGate(request);
  if (gated) return gated;
  // The JSON routes render nothing: no nonce to mint; next.config.ts gives them a fixed policy.
  if (request.nextUrl.pathname.startsWith("/api/")) return NextResponse.next();
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  // NODE_ENV is fixed by Next when it builds (development under next dev), not configuration.
  const csp = contentSecurityPolicy({ nonce, dev: process.env.NODE_ENV === "development" });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

/** DRIFTWATCH_REQUIRE_SIGN_IN: a reader who is not signed in reads nothing but the sign-in page. */
function signInGate(request: NextRequest): NextResponse | null {
  if (!env().requireSignIn) return null;
  let signedIn = false;
  try {
    signedIn = actorFromRequest({ headers: request.headers, sessionToken: request.cookies.get(SESSION_COOKIE)?.value }) !== null;
  } catch (error) {
    reportAuthProblem(error); // no accounts file: nobody is signed in, and the log says why
  }
  const gate = readGate({ required: true, signedIn, method: request.method, pathname: request.nextUrl.pathname, search: request.nextUrl.search });
  if (gate.kind === "pass") return null;
  const headers = { "Cache-Control": "no-store" };
  if (gate.kind === "sign_in") return NextResponse.redirect(new URL(gate.location, request.url), { status: 303, headers });
  return request.nextUrl.pathname.startsWith("/api/")
    ? NextResponse.json({ ok: false, error: { code: "unauthorized", message: gate.message } }, { status: 401, headers })
    : new NextResponse(`${gate.message}\n`, { status: 401, headers: { ...headers, "Content-Type": "text/plain; charset=utf-8" } });
}

export const config = {
  // Pages, the server actions they post to, and the JSON routes; not the hashed static files.
  matcher: [{ source: "/((?!_next/static|_next/image|favicon.svg).*)" }],
};
