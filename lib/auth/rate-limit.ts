/**
 * Failed sign-ins, counted per account name and per client address over a sliding window.
 *
 * In memory, on purpose: the console is one `next start` process, and a restart forgetting the
 * count is acceptable (and is the way to lift a lock at once). Several console processes behind a
 * balancer would each count alone; move this into the accounts file before running more than one.
 */
export interface RateLimitOptions {
  maxFailures: number;
  windowMs: number;
  /** Bounds memory when someone sprays names or addresses. */
  maxKeys?: number;
}

export type Admission = { ok: true; attempt: Attempt } | { ok: false; retryAfterMs: number };

/** A sign-in in progress: counted as a failure from the moment it starts, forgiven if it succeeds. */
export interface Attempt {
  readonly keys: readonly string[];
  readonly at: number;
}

export const LOGIN_LIMIT: RateLimitOptions = { maxFailures: 5, windowMs: 15 * 60_000, maxKeys: 10_000 };

export class LoginRateLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly opts: RateLimitOptions = LOGIN_LIMIT) {}

  private recent(key: string, now: number): number[] {
    const since = now - this.opts.windowMs;
    const kept = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }

  /**
   * Refuses when any key already has maxFailures in the window; otherwise records the attempt as a
   * failure before the password is checked, so that parallel guesses cannot all slip in under the
   * limit while the (slow, on purpose) hash runs.
   */
  begin(keys: readonly string[], now: number = Date.now()): Admission {
    let retryAfterMs = 0;
    for (const key of keys) {
      const times = this.recent(key, now);
      if (times.length >= this.opts.maxFailures) {
        const oldest = times[times.length - this.opts.maxFailures] ?? now;
        retryAfterMs = Math.max(retryAfterMs, oldest + this.opts.windowMs - now);
      }
    }
    if (retryAfterMs > 0) return { ok: false, retryAfterMs };
    for (const key of keys) {
      const times = [...this.recent(key, now), now];
      this.failures.delete(key); // re-inserted last: the Map's order is then least recently failed first
      this.failures.set(key, times);
    }
    this.evict(now);
    return { ok: true, attempt: { keys, at: now } };
  }

  /** The attempt succeeded: it no longer counts. Earlier failures still do, until they age out. */
  succeed(attempt: Attempt): void {
    for (const key of attempt.keys) {
      const times = this.failures.get(key);
      if (!times) continue;
      const i = times.lastIndexOf(attempt.at);
      if (i >= 0) times.splice(i, 1);
      if (times.length === 0) this.failures.delete(key);
    }
  }

  failureCount(key: string, now: number = Date.now()): number {
    return this.recent(key, now).length;
  }

  private evict(now: number): void {
    const max = this.opts.maxKeys ?? Infinity;
    if (this.failures.size <= max) return;
    for (const key of [...this.failures.keys()]) this.recent(key, now);
    for (const key of this.failures.keys()) {
      if (this.failures.size <= max) break;
      this.failures.delete(key);
    }
  }
}

/**
 * The client's address for the per-address count: the last x-forwarded-for entry, which is the one
 * the nearest proxy added. Next fills the header from the socket only when the client sent none,
 * so without a proxy a client can choose its own address; the per-account count holds regardless.
 */
export function clientAddress(forwardedFor: string | null | undefined): string {
  const last = forwardedFor?.split(",").pop()?.trim();
  return last && last.length <= 64 ? last : "unknown";
}
