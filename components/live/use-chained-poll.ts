"use client";
import { useEffect, useRef } from "react";

/**
 * Calls `refetch` every `everyMs`, hidden tab or not, each wait starting when the previous answer
 * (or failure) arrived. Why not setInterval (TanStack Query's refetchInterval): Chromium's intensive
 * wake-up throttling wakes a page hidden for 5 minutes once a minute for timers whose nesting level
 * is 5 or more, and an interval's repeats, like a setTimeout set from a timer, count as nested. A
 * timeout set when a fetch's answer arrives is set from a network task, so its nesting level starts
 * again and it keeps the 1-second alignment of hidden tabs.
 */
export function useChainedPoll(refetch: () => Promise<unknown>, everyMs: number, enabled: boolean): void {
  const latest = useRef(refetch);
  useEffect(() => {
    latest.current = refetch;
  }, [refetch]);
  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = () => {
      void latest
        .current()
        .catch(() => undefined)
        .finally(() => {
          if (!stopped) timer = setTimeout(tick, everyMs);
        });
    };
    timer = setTimeout(tick, everyMs);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [enabled, everyMs]);
}
