/**
 * The session cookie's attributes. `Secure` when the request reached us over https, as the
 * x-forwarded-proto header says (Next sets it from the socket, and a TLS-terminating proxy sets
 * it to https); never on plain http such as http://127.0.0.1:3000, where a browser may refuse
 * to store a Secure cookie and nobody could sign in.
 */
export function isHttps(forwardedProto: string | null | undefined): boolean {
  return forwardedProto?.split(",")[0]?.trim().toLowerCase() === "https";
}

export function sessionCookieOptions(opts: { forwardedProto: string | null | undefined; maxAgeMs: number }) {
  return {
    httpOnly: true,
    sameSite: "strict" as const,
    secure: isHttps(opts.forwardedProto),
    path: "/",
    maxAge: Math.floor(opts.maxAgeMs / 1000),
  };
}
