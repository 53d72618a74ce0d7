// No "server-only": the benchmark and the e2e tests sign sessions with it outside Next (tsx, Playwright), where that import throws.
/**
 * The session cookie's value: base64url(JSON payload) "." base64url(HMAC-SHA256(payload, secret)).
 * Stateless; what ends a session early is the account (re-read on every request by
 * lib/auth/resolve.ts), not this token. Pure: no Next, no database.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";

export const SESSION_COOKIE = "driftwatch_session";
export const MIN_SECRET_LENGTH = 32;

export interface SessionPayload {
  /** The account name. */
  sub: string;
  /** Issued and expiry times, in seconds since the epoch (as JWT's iat and exp). */
  iat: number;
  exp: number;
  /**
   * The account's sessions_valid_from when the session began. Disabling the account or changing its
   * password moves that value on, which ends every older session for good (enabling it again does not
   * bring them back).
   */
  sv: string;
}

const payloadSchema = z.object({
  sub: z.string().min(1).max(64),
  iat: z.number().int().nonnegative(),
  exp: z.number().int().positive(),
  sv: z.string().min(1).max(64),
});

/** Clocks of two machines (or a restart across an NTP step) disagree by a little; a token from further ahead was not made by us. */
export const MAX_CLOCK_SKEW_MS = 60_000;

export type VerifyResult =
  { ok: true; payload: SessionPayload } | { ok: false; reason: "malformed" | "bad_signature" | "expired" | "overlong" | "not_yet_valid" };

function mac(data: string, secret: string): Buffer {
  return createHmac("sha256", secret).update(data).digest();
}

function assertSecret(secret: string): void {
  // A short secret is a configuration error, caught at start by lib/env.ts; this guards callers
  // that build their own (tests, scripts).
  if (secret.length < MIN_SECRET_LENGTH) throw new RangeError(`session secret must be at least ${MIN_SECRET_LENGTH} characters`);
}

export function sessionPayload(opts: { name: string; sessionsValidFrom: string; ttlMs: number; now?: Date }): SessionPayload {
  const iat = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  return { sub: opts.name, iat, exp: iat + Math.max(1, Math.floor(opts.ttlMs / 1000)), sv: opts.sessionsValidFrom };
}

export function signSession(payload: SessionPayload, secret: string): string {
  assertSecret(secret);
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${body}.${mac(body, secret).toString("base64url")}`;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * The signature is checked before the payload is parsed: nothing an attacker wrote is read unless we
 * signed it. A signed token still has to fit today's rules: a lifetime (exp - iat) no longer than
 * maxTtlMs, the configured session TTL, so a token minted with a longer TTL (an older setting, or a
 * leaked secret used to mint a year-long one) is refused, and an iat no further ahead than the skew.
 */
export function verifySession(token: string, secret: string, opts: { maxTtlMs: number; now?: Date }): VerifyResult {
  const now = opts.now ?? new Date();
  assertSecret(secret);
  if (token.length > 4096) return { ok: false, reason: "malformed" };
  const parts = token.split(".");
  if (parts.length !== 2) return { ok: false, reason: "malformed" };
  const [body, signature] = parts as [string, string];
  if (!BASE64URL.test(body) || !BASE64URL.test(signature)) return { ok: false, reason: "malformed" };
  const given = Buffer.from(signature, "base64url");
  const expected = mac(body, secret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "bad_signature" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return { ok: false, reason: "malformed" };
  }
  const payload = payloadSchema.safeParse(parsed);
  if (!payload.success) return { ok: false, reason: "malformed" };
  const { iat, exp } = payload.data;
  if (exp * 1000 <= now.getTime()) return { ok: false, reason: "expired" };
  // sessionPayload rounds the TTL down to whole seconds, so an honest token never exceeds it.
  if ((exp - iat) * 1000 > Math.max(opts.maxTtlMs, 1000)) return { ok: false, reason: "overlong" };
  if (iat * 1000 > now.getTime() + MAX_CLOCK_SKEW_MS) return { ok: false, reason: "not_yet_valid" };
  return { ok: true, payload: payload.data };
}
