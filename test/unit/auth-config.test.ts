import path from "node:path";
import { describe, expect, it } from "vitest";
import { isHttps, sessionCookieOptions } from "@/lib/auth/cookie";
import { canAct } from "@/lib/auth/roles";
import { contentSecurityPolicy } from "@/lib/auth/security-headers";
import { EnvError, parseEnv } from "@/lib/env";

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

  it("refuses a scrypt cost under 2^15", () => {
    expect(() => parseEnv({ DRIFTWATCH_SCRYPT_LOG_N: "12" })).toThrow(/DRIFTWATCH_SCRYPT_LOG_N must be at least 15/);
  });

  it("lowercases the SSO header names, and refuses a role header without an identity header", () => {
    expect(parseEnv({ DRIFTWATCH_TRUSTED_IDENTITY_HEADER: "X-Forwarded-User" }).trustedIdentityHeader).toBe("x-forwarded-user");
    expect(() => parseEnv({ DRIFTWATCH_TRUSTED_ROLE_HEADER: "x-forwarded-role" })).toThrow(/DRIFTWATCH_TRUSTED_IDENTITY_HEADER is not/);
    expect(() => parseEnv({ DRIFTWATCH_TRUSTED_IDENTITY_HEADER: "x forwarded user" })).toThrow(/DRIFTWATCH_TRUSTED_IDENTITY_HEADER must be an HTTP header name/);
  });
});

describe("the session cookie", () => {
  it("is Secure only when the request came over https", () => {
    expect(isHttps("https")).toBe(true);
    expect(isHttps("https, http")).toBe(true);
    expect(isHttps("http")).toBe(false);
    expect(isHttps(null)).toBe(false);
    expect(sessionCookieOptions({ forwardedProto: "http", maxAgeMs: 3600_000 })).toEqual({ httpOnly: true, sameSite: "strict", secure: false, path: "/", maxAge: 3600 });
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
