/**
 * Failed sign-ins, counted per key (an account name, a client address, or a known device) over a
 * sliding window, answered with growing delays rather than a lockout: the first few failures cost
 * nothing, then each further attempt on that key must wait 1 s, 2 s, 4 s … up to a minute after
 * the last failure. A guesser is held to about one try a minute per key, and a stranger's failures
 * never shut the door for long. lib/auth/resolve.ts decides which keys an attempt is counted under;
 * a browser the account signed in on before (lib/auth/device.ts) is counted apart from strangers.
 *
 * Two stores keep the counts behind one interface (SignInLimiter): this in-memory one, the default
 * for one `next start` process (a restart forgetting the count is acceptable), and
 * lib/auth/pg-rate-limit.ts, a table in PostgreSQL that several console processes behind a balancer
 * share (DRIFTWATCH_LIMITER_URL), so that spreading guesses over them gains nothing. Both decide
 * with the same rule (admit, below).
 */
export interface RateLimitOptions {
  /** Failures in the window that cost nothing; the next attempt after them waits baseDelayMs. */
  freeFailures: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** How long a failure is remembered. */
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

/** Where the failures are counted: in this process, or in a store several console processes share. */
export interface SignInLimiter {
  begin(keys: readonly string[], now?: number): Admission | Promise<Admission>;
  succeed(attempt: Attempt): void | Promise<void>;
}

export const LOGIN_LIMIT: RateLimitOptions = { freeFailures: 5, baseDelayMs: 1000, maxDelayMs: 60_000, windowMs: 15 * 60_000, maxKeys: 10_000 };

/** How long after the last failure the next attempt must wait, given the failures in the window. */
export function delayAfterFailures(failures: number, opts: RateLimitOptions = LOGIN_LIMIT): number {
  if (failures < opts.freeFailures) return 0;
  const doublings = Math.min(failures - opts.freeFailures, 30);
  return Math.min(opts.baseDelayMs * 2 ** doublings, opts.maxDelayMs);
}

/**
 * The rule, for any store: given each key's failures still in the window (oldest first), how long
 * the attempt must still wait; 0 admits it.
 */
export function waitBefore(failuresByKey: Iterable<readonly number[]>, now: number, opts: RateLimitOptions = LOGIN_LIMIT): number {
  let retryAfterMs = 0;
  for (const times of failuresByKey) {
    const last = times[times.length - 1];
    if (last === undefined) continue;
    retryAfterMs = Math.max(retryAfterMs, last + delayAfterFailures(times.length, opts) - now);
  }
  return retryAfterMs;
}

export class LoginRateLimiter implements SignInLimiter {
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
   * Refuses while any key is still in its delay, saying for how long; a refused attempt is not
   * counted (it checked no password). Otherwise records the attempt as a failure before the
   * password is checked, so that parallel guesses cannot all slip in while the (slow, on purpose)
   * hash runs: the first few get through, the rest wait.
   */
  begin(keys: readonly string[], now: number = Date.now()): Admission {
    const retryAfterMs = waitBefore(
      keys.map((key) => this.recent(key, now)),
      now,
      this.opts,
    );
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

  /**
   * Over maxKeys, forgets first the keys whose failures are still free (they hold nobody back),
   * least recently failed first, and only then the others. Forgetting the oldest whatever their
   * count let a stranger spraying new names (each one failure) push an account out of its delay
   * and win its five free guesses back.
   */
  private evict(now: number): void {
    const max = this.opts.maxKeys ?? Infinity;
    if (this.failures.size <= max) return;
    for (const key of [...this.failures.keys()]) this.recent(key, now);
    for (const freeOnly of [true, false]) {
      for (const [key, times] of this.failures) {
        if (this.failures.size <= max) return;
        if (!freeOnly || times.length < this.opts.freeFailures) this.failures.delete(key);
      }
    }
  }
}
