import path from "node:path";
import { describe, expect, it } from "vitest";
import { isHttps, sessionCookieOptions } from "@/lib/auth/cookie";
import { canAct } from "@/lib/auth/roles";
import { contentSecurityPolicy } from "@/lib/auth/security-headers";
import { requiredDistinctCharacters, secretWeakness } from "@/lib/auth/secret-strength";
import { EnvError, parseEnv } from "@/lib/env";

const PROXY_SECRET = "Jx0c8vQ2mK5pYr7TnW1zL4bH9dF3gS6a-proxy";

describe("accounts and session configuration", () => {
  it("defaults: accounts beside the journal in ./data, 12 h sessions, scrypt 2^15, no SSO", () => {
    const env = parseEnv({});
    expect(env.accountsDbPath).toBe(path.resolve("data/accounts.db"));
    expect(env.sessionSecret).toBeUndefined();
    expect(env.sessionTtlMs).toBe(12 * 3600_000);
    expect(env.scryptLogN).toBe(15);
    expect(env.trustedIdentityHeader).toBeUndefined();
  });

  it("refuses a session secret under 32 characters, naming the variable and not echoing the value", () => {
    const attempt = () => parseEnv({ DRIFTWATCH_SESSION_SECRET: "hunter2-is-too-short" });
    expect(attempt).toThrow(EnvError);
    expect(attempt).toThrow(/DRIFTWATCH_SESSION_SECRET must be at least 32 characters/);
    expect(attempt).not.toThrow(/hunter2/);
  });

  it("treats an empty secret as unset", () => {
    expect(parseEnv({ DRIFTWATCH_SESSION_SECRET: "" }).sessionSecret).toBeUndefined();
  });

  it("counts failed sign-ins in memory unless DRIFTWATCH_LIMITER_URL names a PostgreSQL database, and refuses any other URL", () => {
    expect(parseEnv({}).limiterUrl).toBeNull();
    expect(parseEnv({ DRIFTWATCH_LIMITER_URL: "" }).limiterUrl).toBeNull();
    expect(parseEnv({ DRIFTWATCH_LIMITER_URL: "postgresql://console@db.internal:5432/driftwatch" }).limiterUrl).toBe(
      "postgresql://console@db.internal:5432/driftwatch",
    );
    expect(() => parseEnv({ DRIFTWATCH_LIMITER_URL: "https://db.internal/driftwatch" })).toThrow(/DRIFTWATCH_LIMITER_URL must be a postgresql:\/\/ URL/);
  });

  it("refuses a scrypt cost under 2^15", () => {
    expect(() => parseEnv({ DRIFTWATCH_SCRYPT_LOG_N: "12" })).toThrow(/DRIFTWATCH_SCRYPT_LOG_N must be at least 15/);
  });

  it("lowercases the SSO identity header name, and refuses one that is not a header name", () => {
    expect(parseEnv({ DRIFTWATCH_TRUSTED_IDENTITY_HEADER: "X-Forwarded-User", DRIFTWATCH_TRUSTED_PROXY_SECRET: PROXY_SECRET }).trustedIdentityHeader).toBe(
      "x-forwarded-user",
    );
    expect(() => parseEnv({ DRIFTWATCH_TRUSTED_IDENTITY_HEADER: "x forwarded user", DRIFTWATCH_TRUSTED_PROXY_SECRET: PROXY_SECRET })).toThrow(
      /DRIFTWATCH_TRUSTED_IDENTITY_HEADER must be an HTTP header name/,
    );
  });

  it("refuses the role header at start, whatever else is set: roles come from driftwatch's own accounts", () => {
    for (const extra of [{}, { DRIFTWATCH_TRUSTED_IDENTITY_HEADER: "x-forwarded-user", DRIFTWATCH_TRUSTED_PROXY_SECRET: PROXY_SECRET }]) {
      const attempt = () => parseEnv({ DRIFTWATCH_TRUSTED_ROLE_HEADER: "x-forwarded-role", ...extra });
      expect(attempt).toThrow(EnvError);
      expect(attempt).toThrow(/DRIFTWATCH_TRUSTED_ROLE_HEADER is no longer read.*npm run accounts -- add NAME --role operator/);
    }
  });

  it("refuses an identity header without a proxy secret, and keeps the secret when both are set", () => {
    expect(() => parseEnv({ DRIFTWATCH_TRUSTED_IDENTITY_HEADER: "x-forwarded-user" })).toThrow(/DRIFTWATCH_TRUSTED_PROXY_SECRET is not.*Set both, or neither/);
    expect(parseEnv({ DRIFTWATCH_TRUSTED_IDENTITY_HEADER: "x-forwarded-user", DRIFTWATCH_TRUSTED_PROXY_SECRET: PROXY_SECRET }).trustedProxySecret).toBe(
      PROXY_SECRET,
    );
  });

  it("trusts no proxy hops unless told, and refuses a count that is not 0 to 10", () => {
    expect(parseEnv({}).trustedProxyHops).toBe(0);
    expect(parseEnv({ DRIFTWATCH_TRUSTED_PROXY_HOPS: "1" }).trustedProxyHops).toBe(1);
    for (const hops of ["-1", "11", "one"]) expect(() => parseEnv({ DRIFTWATCH_TRUSTED_PROXY_HOPS: hops })).toThrow(/DRIFTWATCH_TRUSTED_PROXY_HOPS/);
  });
});

describe("secret strength", () => {
  it("refuses a secret of one repeated letter, or a placeholder repeated, without echoing it", () => {
    for (const weak of ["a".repeat(32), "changeme".repeat(4), "password".repeat(5), "ab".repeat(24), "0123456789".slice(0, 9).repeat(4)]) {
      expect(secretWeakness(weak)).toMatch(/distinct character.*openssl rand/);
      expect(secretWeakness(weak)).not.toContain(weak);
    }
  });

  it("accepts what a random generator prints: base64 and hex", () => {
    expect(secretWeakness("Jx0c8vQ2mK5pYr7TnW1zL4bH9dF3gS6a")).toBeNull();
    expect(secretWeakness("3f9a1c07be4d2e58a6c0f1b7d9e24a53")).toBeNull();
    expect(secretWeakness("k2P9xQ7mB4vN8wR1")).toBeNull(); // a 16-character venue token
  });

  it("asks for 10 distinct characters from 28 characters up, and a third of the length below", () => {
    expect(requiredDistinctCharacters(16)).toBe(6);
    expect(requiredDistinctCharacters(32)).toBe(10);
    expect(requiredDistinctCharacters(64)).toBe(10);
  });

  it("applies to the session secret, the proxy secret, the audit key and the venue token, naming the variable", () => {
    const weak32 = "x".repeat(40);
    for (const name of ["DRIFTWATCH_SESSION_SECRET", "DRIFTWATCH_TRUSTED_PROXY_SECRET", "DRIFTWATCH_AUDIT_KEY"]) {
      const attempt = () => parseEnv({ [name]: weak32 });
      expect(attempt).toThrow(EnvError);
      expect(attempt).toThrow(new RegExp(`${name} has only 1 distinct character`));
      expect(attempt).not.toThrow(/xxxx/);
    }
    expect(() => parseEnv({ DRIFTWATCH_VENUE_URL: "http://127.0.0.1:9", DRIFTWATCH_VENUE_TOKEN: "tokentokentokentoken" })).toThrow(
      /DRIFTWATCH_VENUE_TOKEN has only 5 distinct characters/,
    );
    expect(parseEnv({ DRIFTWATCH_SESSION_SECRET: PROXY_SECRET }).sessionSecret).toBe(PROXY_SECRET);
  });
});

describe("the session cookie", () => {
  it("is Secure only when the request came over https", () => {
    expect(isHttps("https")).toBe(true);
    expect(isHttps("https, http")).toBe(true);
    expect(isHttps("http")).toBe(false);
    expect(isHttps(null)).toBe(false);
    expect(sessionCookieOptions({ forwardedProto: "http", maxAgeMs: 3600_000 })).toEqual({
      httpOnly: true,
      sameSite: "strict",
      secure: false,
      path: "/",
      maxAge: 3600,
    });
    expect(sessionCookieOptions({ forwardedProto: "https", maxAgeMs: 3600_000 }).secure).toBe(true);
  });
});

describe("roles", () => {
  it("lets operators act, and nobody else", () => {
    expect(canAct({ name: "a", role: "operator", via: "session" })).toBe(true);
    expect(canAct({ name: "a", role: "viewer", via: "session" })).toBe(false);
    expect(canAct(null)).toBe(false);
  });
});

describe("the content security policy", () => {
  it("allows scripts only by nonce, and no framing", () => {
    const csp = contentSecurityPolicy({ nonce: "abc123", dev: false });
    expect(csp).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(contentSecurityPolicy({ nonce: "n", dev: true })).toContain("'unsafe-eval'");
  });
});
