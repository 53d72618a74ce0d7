import "server-only";
/**
 * From a cookie or a trusted header to an Actor, and from a name and password to a signed-in
 * account. Everything here takes its inputs as arguments (no Next, no process.env), so the
 * integration tests run it against real accounts files; lib/auth/session.ts feeds it the request.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { AccountsDb } from "../db/accounts-file";
import type { AccountRow } from "../db/accounts-schema";
import { getAccountForSignIn } from "./accounts";
import { deviceIdFor } from "./device";
import { addressLimitKey } from "../http/client-address";
import { hashPassword, verifyPassword } from "./password";
import type { SignInLimiter } from "./rate-limit";
import { isAccountName, type Actor } from "./roles";
import { verifySession } from "./token";

export type SessionCheck =
  | { ok: true; actor: Actor }
  | { ok: false; reason: "malformed" | "bad_signature" | "expired" | "overlong" | "not_yet_valid" | "unknown_account" | "disabled" | "session_ended" };

/**
 * The account is read on every call: disabling it, changing its role or its password takes effect
 * at its next request. The role comes from the accounts file, never from the cookie. A session
 * from before the account was last disabled or its password changed has ended for good.
 * maxTtlMs is the configured session TTL: no token lives longer, whatever it says.
 */
export function actorFromSession(opts: { db: AccountsDb; token: string; secret: string; maxTtlMs: number; now?: Date }): SessionCheck {
  const verified = verifySession(opts.token, opts.secret, { maxTtlMs: opts.maxTtlMs, now: opts.now });
  if (!verified.ok) return verified;
  const account = getAccountForSignIn(opts.db, { name: verified.payload.sub });
  if (!account) return { ok: false, reason: "unknown_account" };
  if (account.disabled) return { ok: false, reason: "disabled" };
  if (account.sessionsValidFrom !== verified.payload.sv) return { ok: false, reason: "session_ended" };
  return { ok: true, actor: { name: account.name, role: account.role, via: "session" } };
}

/** The header the SSO proxy proves itself with, on every request it forwards. */
export const PROXY_SECRET_HEADER = "x-driftwatch-proxy-secret";

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/**
 * Whether a request's X-Driftwatch-Proxy-Secret is the configured one. Both are hashed first, so
 * the comparison is constant-time over equal-length digests and neither the length nor a prefix
 * of the secret can be learned from the response time. No secret configured: nobody is a proxy.
 */
export function isTrustedProxy(given: string | null | undefined, secret: string | undefined): boolean {
  if (!secret || typeof given !== "string") return false;
  return timingSafeEqual(digest(given), digest(secret));
}

/** What a proxy may name: account names, plus "@" and "+" since many proxies send an e-mail address. */
const SSO_NAME = /^[a-z0-9._@+-]{1,128}$/;

/**
 * SSO mode, once the request has proved it came through the proxy (isTrustedProxy). The proxy's
 * identity header names the user (lowercased); the role comes from driftwatch's own accounts,
 * never from a header: an enabled account of that exact name gives its role, a disabled one gives
 * nobody, and a name without an account is a viewer. A value that is not a plausible user name
 * gives nobody.
 */
export function actorFromTrustedHeader(opts: { db: AccountsDb; identity: string }): Actor | null {
  const name = opts.identity.trim().toLowerCase();
  if (!SSO_NAME.test(name)) return null;
  const account = isAccountName(name) ? getAccountForSignIn(opts.db, { name }) : undefined;
  if (account) return account.disabled ? null : { name, role: account.role, via: "sso" };
  return { name, role: "viewer", via: "sso" };
}

/**
 * Says once per interval that identity headers arrived without the proxy's proof, with how many
 * since the last line: a client sending them on every request cannot fill the log. The header's
 * value is never logged (it is the client's, and could be anything).
 */
export class UnprovenHeaderLog {
  private lastAt = -Infinity;
  private suppressed = 0;

  constructor(
    private readonly write: (line: string) => void = (line) => console.warn(line),
    private readonly intervalMs = 60_000,
  ) {}

  report(opts: { header: string; clientAddress: string; now?: number }): void {
    const now = opts.now ?? Date.now();
    if (now - this.lastAt < this.intervalMs) {
      this.suppressed++;
      return;
    }
    const more = this.suppressed > 0 ? ` (and ${this.suppressed} more since the last report)` : "";
    this.write(
      `driftwatch: ignored ${opts.header} from ${opts.clientAddress}: the request did not carry the proxy's X-Driftwatch-Proxy-Secret${more}. If your proxy sent it, set the same DRIFTWATCH_TRUSTED_PROXY_SECRET on both; otherwise someone is trying to name themselves`,
    );
    this.lastAt = now;
    this.suppressed = 0;
  }
}

export type SignInOutcome =
  /** deviceId: the known device this sign-in came from, to keep in the renewed device cookie; null when none. */
  { ok: true; account: AccountRow; deviceId: string | null } | { ok: false; code: "unauthorized" } | { ok: false; code: "refused"; retryAfterMs: number };

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
 * Checks a name and password under growing delays (lib/auth/rate-limit.ts). One generic failure for
 * an unknown name, a wrong password and a disabled account, so the form cannot be used to learn
 * which names exist.
 *
 * Which counts apply: a client presenting a valid device cookie for this account (device.ts) is
 * counted under that device only; anyone else under the account name and their address. So a
 * stranger's failures, however many and from wherever, never delay the owner on their own browser.
 */
export async function signIn(opts: {
  db: AccountsDb;
  name: string;
  password: string;
  clientAddress: string;
  limiter: SignInLimiter;
  logN: number;
  /** The request's device cookie and the secret it is signed with; omitted: a stranger. */
  device?: { token: string | null | undefined; secret: string };
  now?: Date;
}): Promise<SignInOutcome> {
  const at = opts.now ?? new Date();
  const deviceId = opts.device ? deviceIdFor(opts.device.token, { name: opts.name, secret: opts.device.secret, now: at }) : null;
  const keys = deviceId ? [`device:${deviceId}`] : [`account:${opts.name}`, `address:${addressLimitKey(opts.clientAddress)}`];
  const admission = await opts.limiter.begin(keys, at.getTime());
  if (!admission.ok) return { ok: false, code: "refused", retryAfterMs: admission.retryAfterMs };
  const account = isAccountName(opts.name) ? getAccountForSignIn(opts.db, { name: opts.name }) : undefined;
  const matches = await verifyPassword(opts.password, account?.passwordHash ?? (await decoyHash(opts.logN)));
  if (!account || !matches || account.disabled) return { ok: false, code: "unauthorized" };
  await opts.limiter.succeed(admission.attempt);
  return { ok: true, account, deviceId };
}
