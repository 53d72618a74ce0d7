"use client";
import { useEffect, useState } from "react";

/** The current time, re-rendered every `everyMs`, for ages that must keep counting. */
export function useNow(everyMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(id);
  }, [everyMs]);
  return now;
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
