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
  /** The account's password_changed_at when the session began: a new password ends the session. */
  pwd: string;
}

const payloadSchema = z.object({
  sub: z.string().min(1).max(64),
  iat: z.number().int().nonnegative(),
  exp: z.number().int().positive(),
  pwd: z.string().min(1).max(64),
});

export type VerifyResult = { ok: true; payload: SessionPayload } | { ok: false; reason: "malformed" | "bad_signature" | "expired" };

function mac(data: string, secret: string): Buffer {
  return createHmac("sha256", secret).update(data).digest();
}

function assertSecret(secret: string): void {
  // A short secret is a configuration error, caught at start by lib/env.ts; this guards callers
  // that build their own (tests, scripts).
  if (secret.length < MIN_SECRET_LENGTH) throw new RangeError(`session secret must be at least ${MIN_SECRET_LENGTH} characters`);
}

export function sessionPayload(opts: { name: string; passwordChangedAt: string; ttlMs: number; now?: Date }): SessionPayload {
  const iat = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  return { sub: opts.name, iat, exp: iat + Math.max(1, Math.floor(opts.ttlMs / 1000)), pwd: opts.passwordChangedAt };
}

export function signSession(payload: SessionPayload, secret: string): string {
  assertSecret(secret);
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${body}.${mac(body, secret).toString("base64url")}`;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The signature is checked before the payload is parsed: nothing an attacker wrote is read unless we signed it. */
export function verifySession(token: string, secret: string, now: Date = new Date()): VerifyResult {
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
  if (payload.data.exp * 1000 <= now.getTime()) return { ok: false, reason: "expired" };
  return { ok: true, payload: payload.data };
}
