import "server-only";
/**
 * The device cookie (OWASP's answer to lockout attacks): issued at a successful sign-in, it names
 * the account and a random device id, signed with the session secret. A sign-in that presents a
 * valid one for the account it names is counted under that device alone, apart from strangers, so
 * a stranger's wrong guesses on the account (or from a shared address) never slow down its owner
 * on a browser they signed in on before. Guesses made with a stolen device cookie still meet the
 * growing delays, counted on that device. Pure: no Next, no database.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";

export const DEVICE_COOKIE = "driftwatch_device";
/** How long a browser stays "known" after its last successful sign-in. */
export const DEVICE_TTL_MS = 90 * 24 * 60 * 60_000;

const payloadSchema = z.object({
  sub: z.string().min(1).max(64),
  dev: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/),
  iat: z.number().int().nonnegative(),
});

// A prefix the session token's MAC input can never have (its body is base64url, with no dot), so
// neither token can be passed off as the other even though both use the session secret.
const mac = (body: string, secret: string) => createHmac("sha256", secret).update(`device.${body}`).digest();

export function signDeviceCookie(opts: { name: string; secret: string; now?: Date; deviceId?: string }): string {
  const payload = { sub: opts.name, dev: opts.deviceId ?? randomBytes(16).toString("base64url"), iat: Math.floor((opts.now ?? new Date()).getTime() / 1000) };
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${body}.${mac(body, opts.secret).toString("base64url")}`;
}

/** The device id when the cookie is ours, unexpired and names this account; otherwise null. */
export function deviceIdFor(token: string | null | undefined, opts: { name: string; secret: string; now?: Date }): string | null {
  if (!token || token.length > 1024) return null;
  const [body, signature, ...rest] = token.split(".");
  if (!body || !signature || rest.length > 0 || !/^[A-Za-z0-9_-]+$/.test(body) || !/^[A-Za-z0-9_-]+$/.test(signature)) return null;
  const given = Buffer.from(signature, "base64url");
  const expected = mac(body, opts.secret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  const payload = payloadSchema.safeParse(parsed);
  if (!payload.success || payload.data.sub !== opts.name) return null;
  const now = (opts.now ?? new Date()).getTime();
  if (payload.data.iat * 1000 + DEVICE_TTL_MS <= now) return null;
  return payload.data.dev;
}
