import { describe, expect, it } from "vitest";
import { delayAfterFailures, LOGIN_LIMIT, LoginRateLimiter } from "@/lib/auth/rate-limit";

const t0 = Date.parse("2026-08-10T12:00:00Z");

/** Fails `n` times on `keys`, each as soon as the limiter admits it; returns when the last one happened. */
function failUntilAdmitted(limiter: LoginRateLimiter, keys: string[], n: number, start = t0): number {
  let now = start;
  for (let i = 0; i < n; i++) {
    let admission = limiter.begin(keys, now);
    if (!admission.ok) {
      now += admission.retryAfterMs;
      admission = limiter.begin(keys, now);
    }
    expect(admission.ok).toBe(true);
  }
  return now;
}

describe("the sign-in delays", () => {
  it("cost nothing for five failures, then 1 s, 2 s, 4 s … capped at a minute", () => {
    expect([0, 1, 4].map((n) => delayAfterFailures(n))).toEqual([0, 0, 0]);
    expect([5, 6, 7, 8, 9, 10, 11, 12, 50, 10_000].map((n) => delayAfterFailures(n))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000,
    ]);
  });

  it("admit five failures at once, then refuse the sixth for a second, saying so", () => {
    const limiter = new LoginRateLimiter();
    for (let i = 0; i < 5; i++) expect(limiter.begin(["account:alice"], t0).ok).toBe(true);
    expect(limiter.begin(["account:alice"], t0 + 400)).toEqual({ ok: false, retryAfterMs: 600 });
    expect(limiter.begin(["account:alice"], t0 + 1000).ok).toBe(true);
    // The seventh waits two seconds after the sixth.
    expect(limiter.begin(["account:alice"], t0 + 2999)).toEqual({ ok: false, retryAfterMs: 1 });
    expect(limiter.begin(["account:alice"], t0 + 3000).ok).toBe(true);
  });

  it("do not count a refused attempt: hammering during the delay does not lengthen it", () => {
    const limiter = new LoginRateLimiter();
    for (let i = 0; i < 5; i++) limiter.begin(["account:alice"], t0);
    for (let ms = 1; ms < 1000; ms += 10) expect(limiter.begin(["account:alice"], t0 + ms).ok).toBe(false);
    expect(limiter.failureCount("account:alice", t0 + 999)).toBe(5);
    expect(limiter.begin(["account:alice"], t0 + 1000).ok).toBe(true);
  });

  it("hold a guesser to about one try a minute per key, however fast they send", () => {
    const limiter = new LoginRateLimiter();
    let admitted = 0;
    const hour = 3600_000;
    for (let now = t0; now < t0 + hour; now += 250) {
      if (limiter.begin(["account:alice"], now).ok) admitted++;
    }
    // 5 free + 1+2+4+…+32 s (6 more within the first minute and a bit) + then one a minute.
    expect(admitted).toBeLessThanOrEqual(5 + 6 + 60);
    expect(admitted).toBeGreaterThan(5); // growing delays, not a lockout: the door never shuts
  });

  it("never refuse longer than the cap, however many failures", () => {
    const limiter = new LoginRateLimiter();
    const last = failUntilAdmitted(limiter, ["account:alice"], 40);
    const refused = limiter.begin(["account:alice"], last);
    expect(refused).toEqual({ ok: false, retryAfterMs: LOGIN_LIMIT.maxDelayMs });
  });

  it("forget failures older than the window", () => {
    const limiter = new LoginRateLimiter();
    const last = failUntilAdmitted(limiter, ["account:alice"], 12);
    expect(limiter.begin(["account:alice"], last + LOGIN_LIMIT.windowMs).ok).toBe(true);
    expect(limiter.failureCount("account:alice", last + LOGIN_LIMIT.windowMs)).toBe(1);
  });

  it("do not count an attempt that succeeded", () => {
    const limiter = new LoginRateLimiter();
    for (let i = 0; i < 10; i++) {
      const admission = limiter.begin(["account:alice", "address:10.0.0.1"], t0 + i);
      expect(admission.ok).toBe(true);
      if (admission.ok) limiter.succeed(admission.attempt);
    }
    expect(limiter.failureCount("account:alice", t0 + 10)).toBe(0);
  });

  it("refuse while any one key is in its delay: another account from the same address", () => {
    const limiter = new LoginRateLimiter();
    for (let i = 0; i < 5; i++) limiter.begin([`account:user${i}`, "address:10.0.0.9"], t0 + i);
    expect(limiter.begin(["account:fresh", "address:10.0.0.9"], t0 + 10).ok).toBe(false);
    expect(limiter.begin(["account:fresh", "address:10.0.0.10"], t0 + 10).ok).toBe(true);
  });

  it("keep their memory bounded when names are sprayed", () => {
    const limiter = new LoginRateLimiter({ ...LOGIN_LIMIT, maxKeys: 100 });
    for (let i = 0; i < 1000; i++) limiter.begin([`account:spray${i}`], t0 + i);
    expect(limiter.failureCount("account:spray999", t0 + 1000)).toBe(1);
    expect(limiter.failureCount("account:spray0", t0 + 1000)).toBe(0);
  });

  it("keep an account in its delay however many new names are sprayed after it", () => {
    const limiter = new LoginRateLimiter({ ...LOGIN_LIMIT, maxKeys: 100 });
    for (let i = 0; i < 6; i++) limiter.begin(["account:ana"], t0 + i * 120_000);
    const last = t0 + 5 * 120_000;
    // A stranger's thousand new names, one failure each: they push each other out, not ana's count.
    for (let i = 0; i < 1000; i++) limiter.begin([`account:spray${i}`], last + 1 + i);
    expect(limiter.failureCount("account:ana", last + 1500)).toBe(6);
    expect(limiter.begin(["account:ana"], last + 1500)).toMatchObject({ ok: false, retryAfterMs: 500 });
  });
});
