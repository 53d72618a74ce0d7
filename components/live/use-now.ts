"use client";
import { useSyncExternalStore } from "react";

/**
 * One clock for the whole tab: every age on a screen (the banner's, the header's "updated N s ago",
 * a box's) counts from the same tick, where each of them had its own interval, a second apart at
 * random (three ages on one stalled screen, a try-out). It ticks every second while anything shows
 * an age, and at once when the tab comes back into view: a hidden tab's timers are throttled (to a
 * minute in Chromium after five), and a tab brought back read "live · updated 0 s ago" from before
 * it was hidden until its next tick, on a console that had stopped answering (a try-out).
 */
const TICK_MS = 1_000;
let clock = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function tick() {
  clock = Date.now();
  for (const l of listeners) l();
}

function onVisible() {
  if (document.visibilityState === "visible") tick();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  if (timer === null) {
    clock = Date.now();
    timer = setInterval(tick, TICK_MS);
    document.addEventListener("visibilitychange", onVisible);
    window.addEventListener("pageshow", tick);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
      document.removeEventListener("visibilitychange", onVisible);
      window.removeEventListener("pageshow", tick);
    }
  };
}

/** The current time on the tab's one clock (above), re-rendered at each of its ticks. */
export function useNow(): number {
  return useSyncExternalStore(
    subscribe,
    () => clock,
    // The server renders its own now (each render a new one: its module's clock would be as old as
    // the process); hydration the tab's clock. They differ by the load time, a text the ages' elements
    // let differ (suppressHydrationWarning).
    () => (typeof window === "undefined" ? Date.now() : clock),
  );
}

/**
 * An age the server measured when it answered, kept counting on this clock: the server's age plus
 * the time since the answer arrived (`receivedAt`, the query's dataUpdatedAt). Counting from the
 * answer, not from the timestamp itself, keeps a browser whose clock is off out of the sum. Null
 * stays null (no age to tell); without `receivedAt` the server's age is shown as it was.
 */
export function useLiveAge(serverAgeMs: number | null, receivedAt: number | undefined): number | null {
  const now = useNow();
  if (serverAgeMs === null || !receivedAt) return serverAgeMs;
  return serverAgeMs + Math.max(0, now - receivedAt);
}
