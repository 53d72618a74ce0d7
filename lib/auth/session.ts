import "server-only";
/**
 * Who is making this request: the public API for pages, route handlers and server actions.
 *
 *   const actor = await getActor();          // null: nobody signed in (or the session ended)
 *   if (!canAct(actor)) return refused(...); // operators act, viewers read
 *
 * Call it inside every action: a page that hides a button protects nothing.
 */
import { cookies, headers } from "next/headers";
import { unstable_rethrow } from "next/navigation";
import { env } from "../env";
import { clientAddress } from "../http/client-address";
import { authContext, reportAuthProblem } from "./context";
import { actorFromSession, actorFromTrustedHeader, isTrustedProxy, PROXY_SECRET_HEADER, UnprovenHeaderLog } from "./resolve";
import type { Actor } from "./roles";
import { SESSION_COOKIE } from "./token";

export { canAct, signedInViewer, type Actor } from "./roles";
export { SESSION_COOKIE } from "./token";

/**
 * The signed-in actor, read fresh from the accounts file on every call, or null. Never throws: if
 * the accounts file cannot be opened, nobody is signed in (and the console's log says why).
 *
 * With DRIFTWATCH_TRUSTED_IDENTITY_HEADER set (SSO mode), a request carrying that header and the
 * proxy's secret (X-Driftwatch-Proxy-Secret, compared in constant time) is the user it names, with
 * the role of driftwatch's own account of that name (actorFromTrustedHeader). Without the secret
 * the header is ignored, the attempt logged (at most once a minute), and the session cookie decides,
 * as it does for requests without the header: local accounts still work beside the proxy.
 */
export async function getActor(): Promise<Actor | null> {
  try {
    return await readActor();
  } catch (error) {
    unstable_rethrow(error); // Next's own signals (rendering at build time, redirects) are not failures
    reportAuthProblem(error);
    return null;
  }
}

async function readActor(): Promise<Actor | null> {
  // The request first: while Next prerenders at build time this stops here, before any file is
  // opened or a secret generated.
  const [h, jar] = await Promise.all([headers(), cookies()]);
  return actorFromRequest({ headers: h, sessionToken: jar.get(SESSION_COOKIE)?.value });
}

/**
 * The same answer from a request's parts, for proxy.ts (which has the request, not next/headers).
 * Throws when the accounts file or the secret cannot be had; getActor turns that into nobody.
 */
export function actorFromRequest(req: { headers: Pick<Headers, "get">; sessionToken: string | undefined }): Actor | null {
  const h = req.headers;
  const config = env();
  if (config.trustedIdentityHeader) {
    const identity = h.get(config.trustedIdentityHeader);
    if (identity) {
      if (isTrustedProxy(h.get(PROXY_SECRET_HEADER), config.trustedProxySecret)) return actorFromTrustedHeader({ db: authContext().db, identity });
      unprovenLog().report({ header: config.trustedIdentityHeader, clientAddress: clientAddress(h.get("x-forwarded-for"), config.trustedProxyHops) });
    }
  }
  const token = req.sessionToken;
  // No cookie, nobody: and no accounts file opened (or created) for a visitor who never signs in.
  if (!token) return null;
  const ctx = authContext();
  const check = actorFromSession({ db: ctx.db, token, secret: ctx.secret, maxTtlMs: config.sessionTtlMs });
  return check.ok ? check.actor : null;
}

const holder = globalThis as unknown as { __driftwatchUnprovenHeaderLog?: UnprovenHeaderLog };
function unprovenLog(): UnprovenHeaderLog {
  holder.__driftwatchUnprovenHeaderLog ??= new UnprovenHeaderLog();
  return holder.__driftwatchUnprovenHeaderLog;
}
