"use server";
import "server-only";
/**
 * Sign in and sign out. Server actions are public POST endpoints: Next checks that the Origin
 * matches the host, and the session cookie is SameSite=Strict, so another site can neither post
 * here as the user nor ride an existing session.
 */
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { env } from "../env";
import { clientAddress } from "../http/client-address";
import { LimitedLog } from "../http/rate-window";
import { authContext, reportAuthProblem } from "./context";
import type { LoginState } from "./login-state";
import { MAX_PASSWORD_LENGTH } from "./password";
import { DEVICE_COOKIE, DEVICE_TTL_MS, signDeviceCookie } from "./device";
import { signIn } from "./resolve";
import { ACCOUNT_NAME_RULE } from "./roles";
import { safeNextPath } from "./safe-next";
import { sessionCookieOptions } from "./cookie";
import { sessionPayload, signSession, SESSION_COOKIE } from "./token";

const loginSchema = z.object({
  name: z
    .string()
    .trim()
    .toLowerCase()
    .min(1, "Enter your account name.")
    // Empty is the message above alone; these two speak only about a name that was typed.
    .max(64, `Account names are ${ACCOUNT_NAME_RULE}.`)
    .regex(/^[a-z0-9._-]*$/, `Account names are ${ACCOUNT_NAME_RULE}.`),
  password: z.string().min(1, "Enter your password.").max(MAX_PASSWORD_LENGTH, `Passwords are at most ${MAX_PASSWORD_LENGTH} characters.`),
  next: z.string().optional(),
});

const field = (form: FormData, key: string) => {
  const v = form.get(key);
  return typeof v === "string" ? v : undefined;
};

/**
 * Failed and held-back sign-ins, for whoever watches the server log: someone guessing shows up
 * there, at most 30 lines a minute, then one line counting the rest. Names are checked by the
 * schema above, addresses by clientAddress: neither carries text of the client's choosing.
 */
const SIGN_IN_LOG = new LimitedLog({ linesPerWindow: 30, windowMs: 60_000, maxLineChars: 300, what: "failed sign-ins", write: (line) => console.error(line) });

export async function loginAction(_previous: LoginState, form: FormData): Promise<LoginState> {
  // A post that brought no form (its arguments made up): refused in words, not a TypeError and a stack.
  if (!(form instanceof FormData))
    return { ok: false, code: "invalid", message: "The sign-in did not receive a form. Reload the page and try again.", name: "" };
  const typedName = field(form, "name") ?? "";
  const parsed = loginSchema.safeParse({ name: typedName, password: field(form, "password") ?? "", next: field(form, "next") });
  if (!parsed.success) {
    const { fieldErrors } = z.flattenError(parsed.error);
    return {
      ok: false,
      code: "invalid",
      message: "Check the fields marked below.",
      fieldErrors: { name: fieldErrors.name, password: fieldErrors.password },
      name: typedName,
    };
  }
  const { name, password, next } = parsed.data;
  const [h, jar] = await Promise.all([headers(), cookies()]);
  let outcome;
  const address = clientAddress(h.get("x-forwarded-for"), env().trustedProxyHops);
  try {
    const ctx = authContext();
    const config = env();
    outcome = await signIn({
      db: ctx.db,
      name,
      password,
      clientAddress: address,
      limiter: ctx.limiter,
      logN: config.scryptLogN,
      device: { token: jar.get(DEVICE_COOKIE)?.value, secret: ctx.secret },
    });
    if (outcome.ok) {
      const forwardedProto = h.get("x-forwarded-proto");
      const token = signSession(
        sessionPayload({ name: outcome.account.name, sessionsValidFrom: outcome.account.sessionsValidFrom, ttlMs: config.sessionTtlMs }),
        ctx.secret,
      );
      jar.set(SESSION_COOKIE, token, sessionCookieOptions({ forwardedProto, maxAgeMs: config.sessionTtlMs }));
      // This browser is now known for this account: its own failures are counted apart from strangers'.
      const device = signDeviceCookie({ name: outcome.account.name, secret: ctx.secret, deviceId: outcome.deviceId ?? undefined });
      jar.set(DEVICE_COOKIE, device, sessionCookieOptions({ forwardedProto, maxAgeMs: DEVICE_TTL_MS }));
    }
  } catch (error) {
    reportAuthProblem(error);
    return { ok: false, code: "internal", message: "Sign-in is unavailable right now; the console's log says why.", name };
  }
  if (outcome.ok) redirect(safeNextPath(next)); // outside the try: redirect() works by throwing
  if (outcome.code === "refused") {
    const seconds = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
    SIGN_IN_LOG.line(`driftwatch: sign-in for "${name}" from ${address} held back ${seconds} s after repeated failures`);
    return {
      ok: false,
      code: "refused",
      message: `Too many failed attempts: wait ${seconds} s, then sign in again. A browser that signed in to this account before is not made to wait.`,
      name,
      retryAfterMs: outcome.retryAfterMs,
    };
  }
  SIGN_IN_LOG.line(`driftwatch: sign-in failed for "${name}" from ${address}`);
  return { ok: false, code: "unauthorized", message: "Wrong account name or password.", name };
}

/**
 * Clears the session cookie. The token itself stays valid until it expires, so clearing is what
 * counts. The device cookie stays: this browser is still one its owner signs in on.
 */
export async function logoutAction(): Promise<void> {
  const h = await headers();
  (await cookies()).set(SESSION_COOKIE, "", { ...sessionCookieOptions({ forwardedProto: h.get("x-forwarded-proto"), maxAgeMs: 0 }), maxAge: 0 });
  redirect("/login");
}
