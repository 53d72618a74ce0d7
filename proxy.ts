/**
 * One job: a Content-Security-Policy with a fresh nonce on every page, which Next reads from the
 * request header and puts on its own inline scripts. No authentication here: every action checks
 * the actor itself (lib/auth/session.ts), since a proxy can be bypassed by what it does not match.
 */
import { NextResponse, type NextRequest } from "next/server";
import { contentSecurityPolicy } from "./lib/auth/security-headers";

export function proxy(request: NextRequest) {
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
  // Pages (and the server actions they post to); not the hashed static files, which carry no HTML,
  // and not the JSON routes, whose fixed policy next.config.ts sets.
  matcher: [{ source: "/((?!api/|_next/static|_next/image|favicon.svg).*)" }],
};
