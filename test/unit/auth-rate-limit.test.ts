import { describe, expect, it } from "vitest";
import { clientAddress, LoginRateLimiter } from "@/lib/auth/rate-limit";

const WINDOW = 15 * 60_000;
const t0 = Date.parse("2026-08-10T12:00:00Z");

describe("the sign-in limiter", () => {
  it("admits five failures in the window and refuses the sixth, saying when to retry", () => {
    const limiter = new LoginRateLimiter({ maxFailures: 5, windowMs: WINDOW });
    for (let i = 0; i < 5; i++) expect(limiter.begin(["account:alice"], t0 + i * 1000).ok).toBe(true);
    const refused = limiter.begin(["account:alice"], t0 + 60_000);
    expect(refused).toEqual({ ok: false, retryAfterMs: WINDOW - 60_000 });
  });

  it("admits again once the oldest failure leaves the window", () => {
    const limiter = new LoginRateLimiter({ maxFailures: 5, windowMs: WINDOW });
    for (let i = 0; i < 5; i++) limiter.begin(["account:alice"], t0 + i * 1000);
    expect(limiter.begin(["account:alice"], t0 + WINDOW).ok).toBe(true);
    expect(limiter.begin(["account:alice"], t0 + WINDOW + 500).ok).toBe(false);
  });

  it("does not count an attempt that succeeded", () => {
    const limiter = new LoginRateLimiter({ maxFailures: 5, windowMs: WINDOW });
    for (let i = 0; i < 10; i++) {
      const admission = limiter.begin(["account:alice", "address:10.0.0.1"], t0 + i);
      expect(admission.ok).toBe(true);
      if (admission.ok) limiter.succeed(admission.attempt);
    }
    expect(limiter.failureCount("account:alice", t0 + 10)).toBe(0);
  });

  it("refuses when any one key is over the limit: another account from the same address", () => {
    const limiter = new LoginRateLimiter({ maxFailures: 5, windowMs: WINDOW });
    for (let i = 0; i < 5; i++) limiter.begin([`account:user${i}`, "address:10.0.0.9"], t0 + i);
    expect(limiter.begin(["account:fresh", "address:10.0.0.9"], t0 + 10).ok).toBe(false);
    expect(limiter.begin(["account:fresh", "address:10.0.0.10"], t0 + 10).ok).toBe(true);
  });

  it("keeps its memory bounded when names are sprayed", () => {
    const limiter = new LoginRateLimiter({ maxFailures: 5, windowMs: WINDOW, maxKeys: 100 });
    for (let i = 0; i < 1000; i++) limiter.begin([`account:spray${i}`], t0 + i);
    expect(limiter.failureCount("account:spray999", t0 + 1000)).toBe(1);
    expect(limiter.failureCount("account:spray0", t0 + 1000)).toBe(0);
  });
});

describe("the client address", () => {
  it("is the last x-forwarded-for entry, the one the nearest proxy wrote", () => {
    expect(clientAddress("203.0.113.7")).toBe("203.0.113.7");
    expect(clientAddress("1.2.3.4, 203.0.113.7")).toBe("203.0.113.7");
    expect(clientAddress("::1")).toBe("::1");
  });
  it("is 'unknown' when absent or absurd", () => {
    expect(clientAddress(null)).toBe("unknown");
    expect(clientAddress("")).toBe("unknown");
    expect(clientAddress("x".repeat(100))).toBe("unknown");
  });
});
