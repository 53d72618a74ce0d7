/**
 * Two small counters over fixed windows, in memory (the console is one `next start` process; a
 * restart forgetting the counts is acceptable). Pure: the caller passes the clock.
 *
 * - WindowLimiter: at most `limit` events per key per window, for the per-client limit on action
 *   posts. O(1) a call, so a flood is answered for the price of a Map lookup.
 * - LimitedLog: at most `linesPerWindow` lines a window, each bounded; past that, lines are only
 *   counted, and the count is written as one line when the next window opens. For what strangers
 *   cause (refused anonymous and viewer posts), which must not fill the server's disk either.
 */

export interface WindowLimit {
  limit: number;
  windowMs: number;
  /** Bounds memory when someone sprays keys; the least recently started windows go first. */
  maxKeys: number;
}

export type Taken = { ok: true } | { ok: false; retryAfterMs: number };

export class WindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(readonly opts: WindowLimit) {}

  take(key: string, now: number = Date.now()): Taken {
    const w = this.windows.get(key);
    if (w && now - w.start < this.opts.windowMs) {
      if (w.count >= this.opts.limit) return { ok: false, retryAfterMs: w.start + this.opts.windowMs - now };
      w.count += 1;
      return { ok: true };
    }
    // A new window: re-inserted last, so the Map's order is oldest window first.
    this.windows.delete(key);
    this.windows.set(key, { start: now, count: 1 });
    if (this.windows.size > this.opts.maxKeys) {
      const oldest = this.windows.keys().next();
      if (!oldest.done) this.windows.delete(oldest.value);
    }
    return { ok: true };
  }
}

/** Control and bidi characters, which could forge or hide log lines. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** One log line as written: printable, and at most `max` characters. */
export function boundedLine(text: string, max: number): string {
  const clean = text.replace(UNPRINTABLE, "?");
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

export interface LogBudget {
  linesPerWindow: number;
  windowMs: number;
  maxLineChars: number;
  write: (line: string) => void;
  /** What the lines are about, for the line that counts those held back. */
  what?: string;
}

export class LimitedLog {
  private windowStart = Number.NEGATIVE_INFINITY;
  private used = 0;
  private suppressed = 0;

  constructor(private readonly opts: LogBudget) {}

  /** Writes the line if the window's budget allows, else counts it. Never throws. */
  line(text: string, now: number = Date.now()): void {
    try {
      if (now - this.windowStart >= this.opts.windowMs) {
        if (this.suppressed > 0) {
          this.opts.write(
            `driftwatch: ${this.suppressed} more ${this.opts.what ?? "refused action posts"} were not logged (at most ${this.opts.linesPerWindow} lines every ${this.opts.windowMs / 1000} s)`,
          );
        }
        this.windowStart = now;
        this.used = 0;
        this.suppressed = 0;
      }
      if (this.used < this.opts.linesPerWindow) {
        this.used += 1;
        this.opts.write(boundedLine(text, this.opts.maxLineChars));
      } else {
        this.suppressed += 1;
      }
    } catch {
      // A log that cannot be written must not turn a refusal into a failure.
    }
  }
}
