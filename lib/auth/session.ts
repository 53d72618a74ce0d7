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
import { authContext, reportAuthProblem } from "./context";
import { actorFromSession, actorFromTrustedHeader } from "./resolve";
import type { Actor } from "./roles";
import { SESSION_COOKIE } from "./token";

export { canAct, type Actor, type Role } from "./roles";
export { signSession, verifySession, sessionPayload, SESSION_COOKIE, type SessionPayload, type VerifyResult } from "./token";
export { hashPassword, verifyPassword } from "./password";

/**
 * The signed-in actor, read fresh from the accounts file on every call, or null. Never throws: if
 * the accounts file cannot be opened, nobody is signed in (and the console's log says why).
 *
 * With DRIFTWATCH_TRUSTED_IDENTITY_HEADER set (SSO mode), a request carrying that header is the
 * user it names (see actorFromTrustedHeader for the role); one without it falls back to the
 * session cookie, so local accounts still work beside the proxy.
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
  const config = env();
  if (config.trustedIdentityHeader) {
    const identity = h.get(config.trustedIdentityHeader);
    if (identity) {
      return actorFromTrustedHeader({ db: authContext().db, identity, roleHeaderValue: null });
    }
  }
  const token = jar.get(SESSION_COOKIE)?.value;
  // No cookie, nobody: and no accounts file opened (or created) for a visitor who never signs in.
  if (!token) return null;
  const ctx = authContext();
  const check = actorFromSession({ db: ctx.db, token, secret: ctx.secret });
  return check.ok ? check.actor : null;
}
