/**
 * From a cookie or a trusted header to an Actor, and from a name and password to a signed-in
 * account. Everything here takes its inputs as arguments (no Next, no process.env), so the
 * integration tests run it against real accounts files; lib/auth/session.ts feeds it the request.
 */
import type { AccountsDb } from "../db/accounts-file";
import type { AccountRow } from "../db/accounts-schema";
import { getAccountForSignIn } from "./accounts";
import { hashPassword, verifyPassword } from "./password";
import type { LoginRateLimiter } from "./rate-limit";
import { isAccountName, type Actor } from "./roles";
import { verifySession } from "./token";

export type SessionCheck =
  | { ok: true; actor: Actor }
  | { ok: false; reason: "malformed" | "bad_signature" | "expired" | "unknown_account" | "disabled" | "password_changed" };

/**
 * The account is read on every call: disabling it, changing its role or its password takes effect
 * at its next request. The role comes from the accounts file, never from the cookie.
 */
export function actorFromSession(opts: { db: AccountsDb; token: string; secret: string; now?: Date }): SessionCheck {
  const verified = verifySession(opts.token, opts.secret, opts.now);
  if (!verified.ok) return verified;
  const account = getAccountForSignIn(opts.db, { name: verified.payload.sub });
  if (!account) return { ok: false, reason: "unknown_account" };
  if (account.disabled) return { ok: false, reason: "disabled" };
  if (account.passwordChangedAt !== verified.payload.pwd) return { ok: false, reason: "password_changed" };
  return { ok: true, actor: { name: account.name, role: account.role, via: "session" } };
}

/** What a proxy may name: account names, plus "@" and "+" since many proxies send an e-mail address. */
const SSO_NAME = /^[a-z0-9._@+-]{1,128}$/;

/**
 * SSO mode. The proxy's identity header names the user (lowercased). Their role:
 *  1. an account of that exact name in the accounts file decides: its role, or nobody if disabled;
 *  2. otherwise the role header, when one is configured and says "operator" or "viewer";
 *  3. otherwise viewer.
 * A value that is not a plausible user name gives nobody.
 */
export function actorFromTrustedHeader(opts: { db: AccountsDb; identity: string; roleHeaderValue?: string | null }): Actor | null {
  const name = opts.identity.trim().toLowerCase();
  if (!SSO_NAME.test(name)) return null;
  const account = isAccountName(name) ? getAccountForSignIn(opts.db, { name }) : undefined;
  if (account) return account.disabled ? null : { name, role: account.role, via: "sso" };
  const claimed = opts.roleHeaderValue?.trim().toLowerCase();
  return { name, role: claimed === "operator" ? "operator" : "viewer", via: "sso" };
}

export type SignInOutcome =
  | { ok: true; account: AccountRow }
  | { ok: false; code: "unauthorized" }
  | { ok: false; code: "refused"; retryAfterMs: number };

// Verified against when the name is unknown, so that an unknown name costs the same scrypt as a
// wrong password and the response time does not tell which names exist. Made once per cost.
const decoys = new Map<number, Promise<string>>();
function decoyHash(logN: number): Promise<string> {
  let hash = decoys.get(logN);
  if (!hash) {
    hash = hashPassword("driftwatch decoy password, never matches", { logN });
    decoys.set(logN, hash);
  }
  return hash;
}

/**
 * Checks a name and password under the rate limit. One generic failure for an unknown name, a
 * wrong password and a disabled account, so the form cannot be used to learn which names exist.
 */
export async function signIn(opts: {
  db: AccountsDb;
  name: string;
  password: string;
  clientAddress: string;
  limiter: LoginRateLimiter;
  logN: number;
  now?: Date;
}): Promise<SignInOutcome> {
  const now = (opts.now ?? new Date()).getTime();
  const admission = opts.limiter.begin([`account:${opts.name}`, `address:${opts.clientAddress}`], now);
  if (!admission.ok) return { ok: false, code: "refused", retryAfterMs: admission.retryAfterMs };
  const account = isAccountName(opts.name) ? getAccountForSignIn(opts.db, { name: opts.name }) : undefined;
  const matches = await verifyPassword(opts.password, account?.passwordHash ?? (await decoyHash(opts.logN)));
  if (!account || !matches || account.disabled) return { ok: false, code: "unauthorized" };
  opts.limiter.succeed(admission.attempt);
  return { ok: true, account };
}
