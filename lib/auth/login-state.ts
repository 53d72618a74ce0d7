/** What the sign-in action hands back to its form (it redirects on success, so only failures). */
export type LoginState = {
  ok: false;
  code: "invalid" | "unauthorized" | "refused" | "internal";
  message: string;
  fieldErrors?: { name?: string[]; password?: string[] };
  /** The name as typed, to fill the field again; the password never comes back. */
  name: string;
  /**
   * Held back after repeated failures: how long until the next attempt is let through, counted
   * from the answer (a duration, not a time, so a browser whose clock is off counts it right).
   */
  retryAfterMs?: number;
} | null;

/** Whole seconds left until `untilMs`, rounded up so the form never says 0 s while still held back. */
export function secondsLeft(untilMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil((untilMs - nowMs) / 1000));
}

/** What the form shows under its button while the wait lasts. */
export function waitText(seconds: number): string {
  return `try again in ${seconds} s`;
}
