/**
 * A Content-Security-Policy with a fresh nonce on every page, which Next reads from the request
 * header and puts on its own inline scripts; and a 4xx for the few malformed requests Next itself
 * would answer with a 500 (lib/http/request-limits.ts). No authentication here: every action checks
 * the actor itself (lib/auth/session.ts), since a proxy can be bypassed by what it does not match.
 */
import { NextResponse, type NextRequest } from "next/server";
import { contentSecurityPolicy } from "./lib/auth/security-headers";
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

export const config = {
  // Pages, the server actions they post to, and the JSON routes; not the hashed static files.
  matcher: [{ source: "/((?!_next/static|_next/image|favicon.svg).*)" }],
};
