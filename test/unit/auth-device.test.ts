import { describe, expect, it } from "vitest";
import { deviceIdFor, DEVICE_TTL_MS, signDeviceCookie } from "@/lib/auth/device";
import { sessionPayload, signSession } from "@/lib/auth/token";

const secret = "device-unit-test-secret-k2P9xQ7mB4vN8wR1";
const now = new Date("2026-08-10T12:00:00Z");

describe("the device cookie", () => {
  it("names the device for the account it was issued to, and keeps a given device id when renewed", () => {
    const token = signDeviceCookie({ name: "alice", secret, now });
    const id = deviceIdFor(token, { name: "alice", secret, now });
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(deviceIdFor(signDeviceCookie({ name: "alice", secret, now, deviceId: id! }), { name: "alice", secret, now })).toBe(id);
    // Two browsers are two devices.
    expect(deviceIdFor(signDeviceCookie({ name: "alice", secret, now }), { name: "alice", secret, now })).not.toBe(id);
  });

  it("counts for nobody else: another account, another secret, a changed payload", () => {
    const token = signDeviceCookie({ name: "alice", secret, now });
    expect(deviceIdFor(token, { name: "bob", secret, now })).toBeNull();
    expect(deviceIdFor(token, { name: "alice", secret: `${secret}-other`, now })).toBeNull();
    const [, signature] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ sub: "bob", dev: "a".repeat(22), iat: 1 })).toString("base64url");
    expect(deviceIdFor(`${forged}.${signature}`, { name: "bob", secret, now })).toBeNull();
  });

  it("is not a session token and a session token is not a device cookie, though both use the session secret", () => {
    const session = signSession(sessionPayload({ name: "alice", sessionsValidFrom: now.toISOString(), ttlMs: 3600_000, now }), secret);
    expect(deviceIdFor(session, { name: "alice", secret, now })).toBeNull();
  });

  it("expires 90 days after the sign-in that issued it", () => {
    const token = signDeviceCookie({ name: "alice", secret, now });
    expect(deviceIdFor(token, { name: "alice", secret, now: new Date(now.getTime() + DEVICE_TTL_MS - 1000) })).not.toBeNull();
    expect(deviceIdFor(token, { name: "alice", secret, now: new Date(now.getTime() + DEVICE_TTL_MS) })).toBeNull();
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["no dot", "abc"],
    ["three parts", "a.b.c"],
    ["huge", `${"a".repeat(2000)}.b`],
  ])("is ignored when %s", (_label, token) => {
    expect(deviceIdFor(token, { name: "alice", secret, now })).toBeNull();
  });
});
